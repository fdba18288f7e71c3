"""certdp: certified calibration of differential-privacy noise mechanisms."""
