"""Freeze Open Bandit Pipeline 0.5.7's off-policy estimates for tests/test_off_policy.py.

obp 0.5.7 does not install here (it requires Python < 3.11, and its dependencies would pull
torch and downgrade nothing but add gigabytes), so this script reads obp's own source from
its PyPI sdist (``pip download --no-deps --ignore-requires-python obp==0.5.7``, unpacked)
and imports it with torch stubbed during the import only: obp imports torch at the top of
``obp.utils`` and ``obp.policy``, and the estimators never call it. The inputs and obp's
numbers go to ``corpus/off_policy_obp.json``; the test never imports obp.

    python corpus/off_policy_obp.py /path/to/obp-0.5.7
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).with_name("off_policy_obp.json")
_TORCH = [
    "torch",
    "torch.nn",
    "torch.optim",
    "torch.nn.functional",
    "torch.utils",
    "torch.utils.data",
]


class _Stub(types.ModuleType):
    """A module whose every attribute is a stub (a class where the name is capitalised)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name[:1].isupper():
            return type(name, (), {})
        return _Stub(name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Stub("call")


def _import_obp(source: str) -> tuple[Any, Any]:
    sys.path.insert(0, source)
    for name in _TORCH:
        sys.modules[name] = _Stub(name)
    import obp  # noqa: PLC0415
    import obp.ope.estimators as est  # noqa: PLC0415
    import obp.ope.estimators_slate as slate  # noqa: PLC0415

    for name in _TORCH:
        del sys.modules[name]
    assert obp.__version__ == "0.5.7", obp.__version__
    return est, slate


def main(source: str) -> None:
    """Draw the logs, run obp's estimators on them, write the JSON."""
    est, slate = _import_obp(source)
    rng = np.random.default_rng(20261202)
    n, n_actions, n_pos = 600, 5, 3
    pi_b = rng.dirichlet(np.ones(n_actions), size=(n, n_pos))  # (n, positions, actions)
    pi_e = rng.dirichlet(np.ones(n_actions), size=(n, n_pos))
    pos = rng.integers(0, n_pos, n)
    act = np.array([rng.choice(n_actions, p=pi_b[i, pos[i]]) for i in range(n)])
    qhat = rng.random((n, n_actions, n_pos))
    reward = rng.binomial(1, 0.3, n).astype(float)
    action_dist = np.transpose(pi_e, (0, 2, 1))  # obp's (n, actions, positions)
    rows = np.arange(n)
    log = {
        "reward": reward.tolist(),
        "propensity": pi_b[rows, pos, act].tolist(),
        "target": action_dist[rows, act, pos].tolist(),
        "reward_model": qhat[rows, act, pos].tolist(),
        "reward_model_target": (action_dist[rows, :, pos] * qhat[rows, :, pos]).sum(1).tolist(),
        "position": pos.tolist(),
    }

    def estimates(mask: Any) -> dict[str, float]:
        kw = {
            "reward": reward[mask],
            "action": act[mask],
            "pscore": pi_b[rows, pos, act][mask],
            "action_dist": action_dist[mask],
            "position": pos[mask],
        }
        kwq = {**kw, "estimated_rewards_by_reg_model": qhat[mask]}
        return {
            "ips": est.InverseProbabilityWeighting().estimate_policy_value(**kw),
            "ips@2": est.InverseProbabilityWeighting(lambda_=2.0).estimate_policy_value(**kw),
            "snips": est.SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(**kw),
            "dm": est.DirectMethod().estimate_policy_value(**kwq),
            "dr": est.DoublyRobust().estimate_policy_value(**kwq),
            "dr@2": est.DoublyRobust(lambda_=2.0).estimate_policy_value(**kwq),
            "sndr": est.SelfNormalizedDoublyRobust().estimate_policy_value(**kwq),
        }

    obp_all = {k: float(v) for k, v in estimates(np.ones(n, dtype=bool)).items()}
    obp_by_position = {
        str(p): {k: float(v) for k, v in estimates(pos == p).items()} for p in range(n_pos)
    }
    # slates with every position once: obp's SlateIndependentIPS
    n_slates = 200
    slate_id = np.repeat(np.arange(n_slates), n_pos)
    position = np.tile(np.arange(n_pos), n_slates)
    pb = rng.uniform(0.05, 1.0, n_slates * n_pos)
    pe = rng.uniform(0.0, 1.0, n_slates * n_pos)
    rr = rng.binomial(1, 0.4, n_slates * n_pos).astype(float)
    iips = slate.SlateIndependentIPS(len_list=n_pos).estimate_policy_value(
        slate_id=slate_id,
        reward=rr,
        position=position,
        pscore_item_position=pb,
        evaluation_policy_pscore_item_position=pe,
    )
    payload = {
        "obp": "0.5.7",
        "numpy": np.__version__,
        "log": log,
        "obp_all": obp_all,
        "obp_by_position": obp_by_position,
        "slates": {
            "slate_id": slate_id.tolist(),
            "position": position.tolist(),
            "reward": rr.tolist(),
            "propensity": pb.tolist(),
            "target": pe.tolist(),
            "slate_independent_ips": float(iips),
        },
    }
    OUT.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
