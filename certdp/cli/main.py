"""Entry point of the `certdp` command: every error becomes one line and an exit code, never a traceback."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from certdp.certificate import CertificateFormatError
from certdp.cli.common import EXIT_CODES, console, print_json
from certdp.cli.groups import cli
from certdp.numbers import InputError, UndecidedError

# Command modules: importing one attaches its commands to the groups (one line per module).
import certdp.cli.basic  # noqa: E402,F401
import certdp.cli.ggm  # noqa: E402,F401
import certdp.cli.sgg  # noqa: E402,F401
import certdp.cli.mixtures  # noqa: E402,F401
import certdp.cli.crosscheck  # noqa: E402,F401
import certdp.cli.sweep  # noqa: E402,F401
import certdp.cli.compose  # noqa: E402,F401

cli.add_command(certdp.cli.crosscheck.crosscheck_command)
cli.add_command(certdp.cli.sweep.sweep_command)


@cli.command("verify")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the verification result(s) as JSON.")
def verify_command(files: tuple[str, ...], as_json: bool) -> None:
    """Re-check certificates from their inputs: VALID, INVALID or UNDECIDED (FILE... or - for stdin).

    With several files, each gets its own verdict; the exit code is the worst of them
    (0 all VALID, 1 some INVALID, 3 some UNDECIDED and none INVALID).
    """
    from certdp.certificate import MAX_TEXT_BYTES, CertificateFormatError
    from certdp.workflows.verify import verify

    results = []
    for file in files:
        if file == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(MAX_TEXT_BYTES + 1) if stream is not None else sys.stdin.read(MAX_TEXT_BYTES + 1)
        else:
            path = Path(file)
            if not path.is_file():
                raise InputError("FILE", f"no such file: {file}")
            with path.open("rb") as handle:
                data = handle.read(MAX_TEXT_BYTES + 1)
        try:
            results.append((file, verify(data)))
        except CertificateFormatError as exc:
            raise InputError("FILE", f"{file}: not a certdp certificate: {exc}") from None
    if as_json:
        if len(results) == 1:
            print_json(results[0][1].to_dict())
        else:
            print_json([{"file": f, **r.to_dict()} for f, r in results])
    else:
        for file, result in results:
            style = {"VALID": "green", "INVALID": "red", "UNDECIDED": "yellow"}[result.status]
            prefix = f"{file}: " if len(results) > 1 else ""
            console.print(f"{prefix}[bold {style}]{result.status}[/bold {style}]")
            for reason in result.reasons:
                console.print(f"  - {reason}")
    statuses = {r.status for _, r in results}
    sys.exit(EXIT_CODES["INVALID"] if "INVALID" in statuses else EXIT_CODES["UNDECIDED"] if "UNDECIDED" in statuses
             else 0)


# Every leaf command gets --budget, the domain check and UNDECIDED reporting (certdp.cli.validate).
from certdp.cli.validate import HARD_STOP, install  # noqa: E402

install(cli)


def _usage_message(exc: click.UsageError) -> str:
    """One line for a usage error; an unknown sub-command of calibrate/profile/audit names the mechanism."""
    message = exc.format_message()
    ctx = exc.ctx
    if ctx is not None and message.startswith("No such command") and isinstance(ctx.command, click.Group):
        known = ", ".join(ctx.command.list_commands(ctx))
        name = message.split("'")[1] if "'" in message else "?"
        what = "mechanism" if ctx.command.name in ("calibrate", "profile", "audit") else "command"
        return f"{what}: unknown {what} {name!r} for '{ctx.command_path}' (choose from: {known})"
    if ctx is not None and message.startswith("Missing command") and isinstance(ctx.command, click.Group):
        known = ", ".join(ctx.command.list_commands(ctx))
        what = "mechanism" if ctx.command.name in ("calibrate", "profile", "audit") else "command"
        return f"{what}: '{ctx.command_path}' needs a {what} (choose from: {known})"
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    if isinstance(exc, click.NoSuchOption):
        name = exc.option_name.lstrip("-") or "option"
        suggest = f" (did you mean {', '.join(exc.possibilities)}?)" if exc.possibilities else ""
        return f"{name}: no such option {exc.option_name!r}{suggest}{hint}"
    param = getattr(exc, "param", None)
    if isinstance(exc, click.BadParameter) and param is not None:  # MissingParameter is one too
        from certdp.cli.validate import option_name

        message = f"{option_name(param)}: {message[0].lower()}{message[1:]}"
    return message.replace("\n", " ") + hint


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; map errors to exit codes (2 bad input, 3 undecided, 1 internal error)."""
    HARD_STOP["enabled"] = True  # a real process: the budget watchdog may end it
    try:
        cli.main(args=argv, prog_name="certdp", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.UsageError as exc:
        click.echo(f"error: {_usage_message(exc)}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        sys.exit(2)
    except InputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except CertificateFormatError as exc:
        click.echo(f"error: certificate: {exc}", err=True)
        sys.exit(2)
    except UndecidedError as exc:
        click.echo(f"UNDECIDED: {exc}", err=True)
        sys.exit(3)
    except OSError as exc:  # e.g. the disk filled up while writing -o FILE
        click.echo(f"error: {getattr(exc, 'filename', None) or 'file'}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - the CLI never shows a traceback unless asked
        if os.environ.get("CERTDP_DEBUG"):
            raise
        click.echo(f"internal error: {type(exc).__name__}: {exc} (set CERTDP_DEBUG=1 for a traceback)", err=True)
        sys.exit(1)
    sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()
