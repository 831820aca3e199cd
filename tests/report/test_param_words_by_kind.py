"""A swept parameter reads in the words of the kind that sweeps it: "users" is SLB's processes, Swingbench's users."""

from planner.report.study import param_words, point_words


def test_users_read_by_kind() -> None:
    assert param_words("users", "slb") == "SLB processes"
    assert param_words("users") == "SLB processes"  # old run folders carry no kind: SLB's words, as before
    assert param_words("users", "swingbench") == "Swingbench users"


def test_counted_parameters_read_count_first() -> None:
    assert point_words((("users", 16),), "swingbench") == "16 Swingbench users"
    assert point_words((("virtual_users", 64),), "hammerdb") == "64 virtual users"
    assert point_words((("readers", 256),)) == "256 SLOB reader sessions"
