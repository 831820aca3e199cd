"""The database interface and its backends: sqlplus over the connection, and python-oracledb thin mode
(the one oracledb importer)."""
