"""Sweep expansion: a workload step's list-valued parameters become an ordered list of runs.

Parameters marked ``x-sweep`` in the step's schema and given as a list are crossed (a matrix) in the
order the keys appear, first key slowest. Parameters named in the step's ``zip:`` are paired element
by element instead and form one axis, placed where the first of them appears. Each point runs
``warmup`` warm-up runs (recorded, excluded from statistics), then ``repeat`` measured runs.
``readers: [1, 2, 4]`` with ``repeat: 2`` gives six runs: (1,r0) (1,r1) (2,r0) (2,r1) (4,r0) (4,r1).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from planner.errors import InputError, Problem
from planner.plan.model import Section, StepSpec, SweepPoint
from planner.plan.schema import did_you_mean, is_template, sweepable_params

Axis = list[tuple[tuple[str, Any], ...]]  # one axis: its values, each a tuple of (param, value) pairs


def zip_problems(kind: str, args: Mapping[str, Any], zip_names: Sequence[str]) -> list[tuple[str, str, str]]:
    """What is wrong with ``zip:`` for these args, as (parameter, message, hint) triples."""
    out: list[tuple[str, str, str]] = []
    sweepable = sweepable_params(kind)
    lengths: dict[str, int] = {}
    for name in zip_names:
        if name not in sweepable:
            hint = did_you_mean(name, sweepable) or (
                f"sweepable parameters of {kind}: {', '.join(sorted(sweepable))}" if sweepable
                else f"{kind} has no sweepable parameters")
            out.append((name, f"zip names '{name}', which is not a sweepable parameter of {kind}", hint))
        elif name not in args:
            out.append((name, f"zip names '{name}', which is not given", f"give {name}: [...] or remove it from zip"))
        elif is_template(args[name]):
            continue  # known after rendering
        elif not isinstance(args[name], list):
            out.append((name, f"zip names '{name}', which is not a list",
                        f"give {name} as a list, or remove it from zip"))
        else:
            lengths[name] = len(args[name])
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        out.append(("", f"zip lists must have the same length: {detail}", "give each zipped list as many values"))
    return out


def expand(spec: StepSpec, args: Mapping[str, Any]) -> list[tuple[SweepPoint, dict[str, Any]]]:
    """The runs of one step, in execution order, each with its concrete arguments.

    ``args`` are the step's rendered arguments. Non-workload steps give one point with no params.
    Raises InputError when zip lists (after rendering) do not pair up.
    """
    if spec.section is not Section.WORKLOADS:
        return [(SweepPoint(index=0, params=(), repeat=0), dict(args))]
    bad = zip_problems(spec.kind, args, spec.zip)
    if bad:
        raise InputError([Problem(spec.location, f"{spec.path}.{spec.kind}", msg, hint) for _, msg, hint in bad])
    sweepable = sweepable_params(spec.kind)
    swept = [k for k, v in args.items() if k in sweepable and isinstance(v, list)]
    axes: list[Axis] = []
    for key in swept:
        if key in spec.zip:
            if key == next(k for k in swept if k in spec.zip):
                zipped = [k for k in swept if k in spec.zip]
                axes.append([tuple(zip(zipped, values, strict=True))
                             for values in zip(*(args[k] for k in zipped), strict=True)])
        else:
            axes.append([((key, v),) for v in args[key]])
    order = {k: i for i, k in enumerate(args)}
    out: list[tuple[SweepPoint, dict[str, Any]]] = []
    for combo in itertools.product(*axes):
        params = tuple(sorted((pair for axis_value in combo for pair in axis_value), key=lambda p: order[p[0]]))
        concrete = {**args, **dict(params)}
        runs = [(True, r) for r in range(spec.warmup)] + [(False, r) for r in range(spec.repeat)]
        for warmup, repeat in runs:
            point = SweepPoint(index=len(out), params=params, repeat=repeat, warmup=warmup)
            out.append((point, dict(concrete)))
    return out
