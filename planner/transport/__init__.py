"""How planner reaches a host: the Connection interface, the local and SSH connections, tracked remote processes,
facts and the OS-statistics samplers."""
