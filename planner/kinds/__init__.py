"""Workload kinds, one folder each: a kind's parser, step, findings and stand-in together."""
