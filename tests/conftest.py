"""Shared fixtures."""

import io
import sys
import types

import pytest


@pytest.fixture
def cli(capsys, monkeypatch):
    """The `certdp` entry point in-process: ``cli(*args, stdin=None)`` -> returncode / stdout / stderr."""
    from certdp.cli.main import main

    def invoke(*args, stdin=None):
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        with pytest.raises(SystemExit) as info:
            main(list(args))
        captured = capsys.readouterr()
        return types.SimpleNamespace(returncode=info.value.code, stdout=captured.out, stderr=captured.err)

    return invoke
