"""What the copy step's save script printed on the host is data: only the shapes getfacl and stat print become
setfacl and chcon arguments at restore (tests/test_restore_attrs.py runs the real programs)."""

from __future__ import annotations

import pytest

from planner.steps.generic import _saved_attrs


def test_mode_owner_acl_and_context_are_read() -> None:
    out = ("640 1000:1000\nuser::rw-,user:nobody:r--,group::r--\t#effective:r--,mask::r--,other::---,,\n"
           "system_u:object_r:etc_t:s0\n")
    assert _saved_attrs(out) == {"mode": "640", "owner": "1000:1000",
                                 "acl": "user::rw-,user:nobody:r--,group::r--,mask::r--,other::---",
                                 "selinux": "system_u:object_r:etc_t:s0"}


def test_a_host_without_acls_or_selinux_saves_mode_and_owner_only() -> None:
    assert _saved_attrs("644 0:0\n\n?\n") == {"mode": "644", "owner": "0:0"}


@pytest.mark.parametrize("out", [
    "644 0:0\nuser::rw-,user:x;rm -rf /:r--\n",  # an entry no getfacl prints
    "644 0:0\n--set-file=/etc/shadow\n",
    "644 0:0\n\n--reference=/etc/shadow\n",  # a context no stat prints
    "644 0:0\n\nsystem_u:object_r:etc_t:s0 extra\n",
    "rwx 0:0\nuser::rw-\n",  # a mode no stat prints: nothing is kept from that line
])
def test_anything_else_is_not_kept(out: str) -> None:
    got = _saved_attrs(out)
    assert "acl" not in got and "selinux" not in got
    assert got.get("mode", "644") == "644"
