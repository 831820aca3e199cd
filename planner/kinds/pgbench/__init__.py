"""The pgbench kind: PostgreSQL's own benchmark client."""
