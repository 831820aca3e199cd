"""SSH over paramiko: the one paramiko importer (client), channels, the fixed host-side scripts, targets and
OpenSSH-compatible known_hosts."""

from planner.transport.ssh import noinvoke as _noinvoke

_noinvoke.hide()  # until client.py has imported paramiko (see noinvoke)
