"""ORION: Oracle's I/O calibration tool run on LUNs or files."""
