"""SSH over paramiko: the one paramiko importer (client), channels, the fixed host-side scripts, targets and OpenSSH-compatible known_hosts."""
