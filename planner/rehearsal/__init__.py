"""What a rehearsal builds on this machine: the loopback sshd lab, the sandboxed host roots, the Oracle stand-ins,
the SLB-compatible kit, and the preflight that caps workloads."""
