"""The sysbench kind: sysbench OLTP runs (0.4 to 1.1) against PostgreSQL or MySQL."""
