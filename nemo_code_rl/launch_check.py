"""The launcher's pre-flight: the dry run's checks for one cluster shape, on the login node.

    python -m nemo_code_rl.launch_check --config grpo_code_8gpu.yaml --nodes 2 --gpus-per-node 8 \\
        [--] [OVERRIDE...]

``slurm/launch_multinode.sh`` runs it (also with ``PRINT_ONLY=1``) so that a misspelled override or
a shape NeMo RL cannot place fails in seconds instead of after the allocation. It loads the config
with the overrides and the shape (``cluster.num_nodes``, ``cluster.gpus_per_node``), fits
non-colocated generation to the shape where the config's own placement does not fit it (NeMo RL's
rule: on one node, some of its GPUs; on several, whole nodes), then runs the dry run's key, name
and arithmetic checks (``dry_run.check_config``), and, where NeMo RL imports, its schema and key
checks. Output: on stdout the overrides to add to the trainer's command line, one per line (the
shape's and the placement's); on stderr every finding. Exit status 0, or 1 when a check failed
(``run.EXIT_INVALID_CONFIG``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.config_loading import load_resolved

RESOURCES = "policy.generation.colocated.resources"


def shape_overrides(nodes: int, gpus_per_node: int) -> list[str]:
    """The overrides that give the trainer the allocation's shape."""
    return [f"cluster.num_nodes={nodes}", f"cluster.gpus_per_node={gpus_per_node}"]


def placement_overrides(config: Mapping[str, Any], overrides: Sequence[str]) -> list[str]:
    """Overrides that fit non-colocated generation to the cluster, or none where it fits already.

    NeMo RL's placement (``grpo.setup``): on one node, generation takes
    ``resources.gpus_per_node`` of its GPUs (at least one left to train); on several, it takes
    ``resources.num_nodes`` whole nodes (``gpus_per_node`` equal to the cluster's, at least one
    node left to train). A config written for one node of 8 (4 + 4) is refitted: half the GPUs of
    one node, or half the nodes (at least one). Placement the user set in ``overrides`` is kept
    as given, for the checks to judge.
    """
    policy = (config.get("policy") or {}).get("generation") or {}
    colocated = policy.get("colocated") or {}
    if colocated.get("enabled", True) or any(RESOURCES in override for override in overrides):
        return []
    cluster = config.get("cluster") or {}
    nodes, per_node = int(cluster.get("num_nodes") or 1), int(cluster.get("gpus_per_node") or 1)
    resources = colocated.get("resources") or {}
    gpus, generation_nodes = resources.get("gpus_per_node"), resources.get("num_nodes")
    if nodes == 1:
        if isinstance(gpus, int) and 0 < gpus < per_node and generation_nodes in (None, 1):
            return []
        return [f"{RESOURCES}.gpus_per_node={max(1, per_node // 2)}", f"{RESOURCES}.num_nodes=null"]
    if gpus == per_node and isinstance(generation_nodes, int) and 0 < generation_nodes < nodes:
        return []
    return [f"{RESOURCES}.gpus_per_node={per_node}", f"{RESOURCES}.num_nodes={max(1, nodes // 2)}"]


def check_launch(
    config_name: str, nodes: int, gpus_per_node: int, overrides: Sequence[str]
) -> tuple[list[str], list[str], list[str]]:
    """``(added overrides, errors, other findings)`` for launching ``config_name`` on this shape."""
    from nemo_code_rl.dry_run import added_key_findings, check_config, names_for_checks, schema_findings

    added = shape_overrides(nodes, gpus_per_node)
    _, config = load_resolved(config_name, [*overrides, *added])
    placement = placement_overrides(config, overrides)
    if placement:
        added += placement
        _, config = load_resolved(config_name, [*overrides, *added])
    try:
        names, unavailable = names_for_checks()
    except ValueError as error:
        raise ConfigError(str(error)) from error
    findings = check_config(config, names)
    findings += added_key_findings(config_name, list(overrides), findings)
    schema, schema_skipped = schema_findings(config)
    findings += schema
    errors = [str(f) for f in findings if f.level == "error"]
    others = [str(f) for f in findings if f.level != "error"]
    if unavailable is not None or schema_skipped is not None:
        others.append(
            f"note: NeMo RL is not importable here ({schema_skipped or unavailable}): names were checked "
            "against our copy of its built-in ones, its schema was not checked (the trainer checks it)"
        )
    return added, errors, others


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nemo_code_rl.launch_check", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--config", required=True, help="a shipped config name or a YAML path")
    parser.add_argument("--nodes", type=int, required=True, help="nodes the trainer gets")
    parser.add_argument("--gpus-per-node", type=int, required=True)
    parser.add_argument("overrides", nargs="*", help="the trainer's overrides, key=value")
    args = parser.parse_intermixed_args(sys.argv[1:] if argv is None else argv)
    try:
        added, errors, others = check_launch(args.config, args.nodes, args.gpus_per_node, args.overrides)
    except ConfigError as error:
        sys.stderr.write(f"launch check: invalid config: {error}\n")
        return 1
    for line in [*others, *errors]:
        sys.stderr.write(f"launch check: {line}\n")
    if errors:
        sys.stderr.write(f"launch check FAILED: {len(errors)} error(s); nothing was submitted\n")
        return 1
    sys.stdout.write("".join(f"{override}\n" for override in added))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
