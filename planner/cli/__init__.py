"""The command line: argparse, every verb, exit codes. The only place that calls sys.exit."""
