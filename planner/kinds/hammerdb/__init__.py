"""HammerDB: hammerdbcli's TPROC-C (TPC-C derived) OLTP load."""
