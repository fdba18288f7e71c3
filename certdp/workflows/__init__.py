"""Workflows: calibrate, audit (claims), profile, verify."""
