"""SLOB's tables: its axis words and sweep-table columns (SLOB's figures are the AWR report's), its host
variables, and where its step, findings, extra and stand-in are."""

from planner.kindspec import CacheOption, HostVar, KindSpec, OwnWindow, ReportWords

_SESSIONS = ("readers", "writers", "reader_schemas", "writer_schemas", "threads_per_schema", "sessions")

KIND = KindSpec(
    "slob", step="planner.kinds.slob.step:Slob",
    report=ReportWords(
        param_words={
            "readers": "SLOB reader sessions", "writers": "SLOB writer sessions",
            # a point with THREADS_PER_SCHEMA > 1 (planner.kinds.slob.points): schemas x threads = sessions
            "reader_schemas": "SLOB reader schemas", "writer_schemas": "SLOB writer schemas",
            "threads_per_schema": "threads per schema", "sessions": "SLOB sessions",
        },
        counted=frozenset(_SESSIONS),
        table_metrics=("logical_reads_per_s", "physical_reads_per_s", "logical_to_physical_ratio", "db_cpu_per_s"),
    ),
    findings="planner.kinds.slob.findings:slob_window",
    extras=("planner.kinds.slob.extra:SlobPoint",),
    standin="planner.kinds.slob.standin:install",
    # runit.sh's own begin and end snapshots, as planner saves its output (planner.kinds.slob.step)
    own_window=OwnWindow("runit.log", "planner.kinds.slob.window:snap_window"),
    # ``slob_cache: SIZE`` means "a small cache in the pool the SLOB kit's tables use", whatever the kit's version:
    # the pool of the kit's tables is read from the database (DBA_SEGMENTS.BUFFER_POOL of USER1.CF1; SLOB 2.4.0
    # RECYCLE, 2.5.x KEEP), else from the kit's setup.sh, and init_ora sets that pool's parameter
    cache_option=CacheOption("slob_cache", "planner.kinds.slob.cache:kit_pool"),
    host_vars=(
        HostVar("slob_sqlnet_service", "text", "",
                "a SQL*Net service of the PDB, written as slob.conf ADMIN_SQLNET_SERVICE and SQLNET_SERVICE_BASE"),
        HostVar("slob_tablespace", "text", "IOPS", "the tablespace setup.sh loads SLOB's schemas into"),
        HostVar("slob_max_cache_pct", "integer", "10",
                "a point whose data set is cached above this percentage is refused (it would read the cache)"),
        HostVar("slob_setup_timeout_s", "seconds", "",
                "setup.sh's timeout, outright; unset: the data set at slob_setup_mb_per_s, at least 30 minutes"),
        HostVar("slob_setup_mb_per_s", "integer", "5", "the load rate setup.sh's timeout is estimated with"),
        HostVar("slob_kit", "path", "", "init_ora's slob_cache: the SLOB kit whose setup.sh names the pool its "
                "tables are created in (read before the tables exist)"),
    ),
)
