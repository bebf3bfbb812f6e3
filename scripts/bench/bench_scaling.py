"""How time and peak memory grow with size, per kernel family, with log-log slopes (issue 31, item 4).

    python scripts/bench/bench_scaling.py [--full] [--repeats 3] [--families a,b] [--out DIR]

For each family, each size: build the input (not timed), call the fitted
step ``--repeats`` times after one untimed warm-up, keep the median wall
time and the CPU time (``time.process_time``, which other load on the
machine inflates far less), and the peak memory of one call: the kernel's
high-water mark ``VmHWM`` is reset (``/proc/self/clear_refs``) just before
the call, and the peak minus the resident size at that moment is what the
call added.  A least-squares line through (log size, log CPU time) gives
the time slope, through (log size, log added memory) the memory slope
(sizes where the call added < 1 MB are left out of the memory fit: page
noise).  The default sizes take under a minute (40 s wall, 15 s CPU at load 11);
``--full`` runs the larger sweep.

Families (the stated complexity is the algorithm's own, from its module):

- ``ls_ad_vc_T``: Ls-AD-VC at n = 160, k = 8, b = 0.2, the fraction a of
  all triplets varied: time in |T|.  O(|T| + n^2) cover, O(|T| + n k) per pass.
- ``ls_ad_vc_n``: the same at a = 1 (|T| ~ n^3 / 2), n varied.
- ``active``: one iteration of Algorithm 1 of Aronsson & Chehreghani (2024)
  (local search with T = 3 restarts, then the maxexp batch), on the state
  after 10 % of |E| queries (10 classes, gamma = 0.2): O(N^2) per pass and
  O(N^3) for the maxexp triangles, pruned.
- ``recon``: ReCon (Liu et al. 2011) on ``synthetic_blobs(n)`` with n random
  relative constraints.  O(n^2) distances, plus the agglomeration.
- ``cop_rf``: COP-RF (Zhu et al. 2013) on ``synthetic_blobs(n)`` with 100
  pairwise constraints, 20 trees.  O(n^2) affinity, O(n^3) eigendecomposition.
- ``agg_<name>``: each aggregation algorithm of Gionis et al. (2007) on 8
  k-means clusterings (k = 2..9) of ``synthetic_blobs(n)``; each one's
  stated cost is quoted from its module in the table.

Writes ``scripts/bench/scaling.md`` (the table) and ``scripts/bench/scaling.png``
(the figure) with ``--full``, else ``results/bench/`` only (and the JSON there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ccexp  # noqa: E402
from _harness import markdown_table, write_results  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _status_kb(key: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def _malloc_returns_memory() -> None:
    """Make glibc map every block >= 64 kB on its own and unmap it on free (M_MMAP_THRESHOLD).

    By default the threshold rises after the first large free (up to 32 MB),
    after which freed arrays stay resident and a later call's peak hides in
    them: the added peak would read 0.  A fixed threshold turns that off.
    """
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 64 * 1024)  # M_MMAP_THRESHOLD
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the measurement stays an upper bound of nothing
        pass


def peak_added_mb(fn) -> float:
    """Peak resident memory ``fn()`` adds to the process, in MB (VmHWM reset before the call)."""
    _malloc_returns_memory()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_kb("VmRSS")
    fn()
    return max(_status_kb("VmHWM") - before, 0) * 1024 / 1e6


# --------------------------------------------------------------------------- families
# each: (size name, default sizes, full sizes, stated complexity, setup(size) -> fn)


def _ls_ad_vc(n: int, a: float):
    ds = ccexp.load_dataset("synthetic_labels", n=n, k=8, random_state=0)
    prob = ccexp.make_problem("triplets", ds, fraction=a, noise=0.2, random_state=0)
    return lambda: ccexp.make_algorithm("ls_ad_vc").fit_problem(prob)


def _active(n: int):
    from bench_active import state_after  # the bench's own states (10 classes, gamma 0.2)
    from ccexp.algorithms.active.local_search import ETA, _local_search
    from ccexp.algorithms.active.strategies import BatchSelector

    S, labels, counts, B = state_after(n, 0.1)
    k = int(labels.max()) + 1
    selector = BatchSelector(n, "maxexp", 1.0, 0.0, 5, None, "uniform")
    rng = np.random.default_rng(1)

    def iteration():
        lab, _, _ = _local_search(S, k, 3, ETA, 1000, rng)
        selector.select(S, lab, counts, B, rng)
    return iteration


def _recon(n: int):
    ds = ccexp.load_dataset("synthetic_blobs", n=n, k=10, random_state=0)
    prob = ccexp.make_problem("relative_random", ds, n_constraints=n, random_state=0)
    return lambda: ccexp.make_algorithm("recon", random_state=0).fit_problem(prob)


def _cop_rf(n: int):
    ds = ccexp.load_dataset("synthetic_blobs", n=n, k=10, random_state=0)
    prob = ccexp.make_problem("pairwise", ds, n_constraints=100, random_state=0)
    return lambda: ccexp.make_algorithm("cop_rf", n_trees=20, random_state=0).fit_problem(prob)


def _aggregation(name: str):
    def setup(n: int):
        ds = ccexp.load_dataset("synthetic_blobs", n=n, k=10, random_state=0)
        prob = ccexp.make_problem("clusterings_kmeans", ds, k_min=2, k_max=9, random_state=0)
        return lambda: ccexp.make_algorithm(name, random_state=0).fit_problem(prob)
    return setup


FAMILIES = {
    "ls_ad_vc_T": ("triplets", [0.1, 0.25, 0.5, 1.0], [0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0],
                   "O(T + n^2) cover + O(T + n k) per pass (T triplets): 1", lambda a: _ls_ad_vc(160, a)),
    "ls_ad_vc_n": ("n", [40, 60, 80, 120], [40, 60, 80, 120, 160, 200, 240],
                   "T ~ n^3 triplets: 3 in n", lambda n: _ls_ad_vc(n, 1.0)),
    "active": ("N", [100, 200, 300], [125, 250, 500, 750, 1000],
               "O(N^2) per local-search pass, O(N^3) maxexp triangles (pruned): 2-3", _active),
    "recon": ("n", [200, 400, 800], [250, 500, 1000, 2000, 3000],
              "O(n^2) distances + agglomeration: 2-3", _recon),
    "cop_rf": ("n", [100, 200, 400], [125, 250, 500, 1000, 2000],
               "O(n^2) affinity, O(n^3) eigendecomposition: 2-3", _cop_rf),
    "agg_agglomerative": ("n", [500, 1000, 2000], [500, 1000, 2000, 4000, 8000],
                          "O(n^2 m) weights + O(n^2) NN chain (agglomerative.py): 2", _aggregation("agglomerative")),
    "agg_furthest": ("n", [500, 1000, 2000], [500, 1000, 2000, 4000, 8000],
                     "O(n^2 m + k n m) (furthest.py): 2", _aggregation("furthest")),
    "agg_balls": ("n", [500, 1000, 2000], [500, 1000, 2000, 4000, 8000],
                  "O(n^2 m) worst case (balls.py): <= 2", _aggregation("balls")),
    "agg_local_search": ("n", [500, 1000, 2000], [500, 1000, 2000, 4000, 8000],
                         "O(n k m) per pass, k = n in the first from singletons: O(I n^2) (local_search.py): 2", _aggregation("local_search")),
    "agg_best_clustering": ("n", [500, 1000, 2000], [500, 1000, 2000, 4000, 8000],
                            "O(n m^2) (best_clustering.py): 1", _aggregation("best_clustering")),
    "agg_rock": ("n", [250, 500, 1000], [250, 500, 1000, 2000, 4000],
                 "O(n^2 m) neighbours + O(sum deg^2) links (rock.py): 2-3", _aggregation("rock")),
    "agg_limbo": ("n", [500, 1000, 2000], [500, 1000, 2000, 4000, 8000],
                  "O(n S m) + O(S^2 V) + O(n k m), V values (limbo.py): ~1", _aggregation("limbo")),
}


def slope(xs, ys) -> float | None:
    pts = [(np.log(x), np.log(y)) for x, y in zip(xs, ys) if x > 0 and y and y > 0]
    if len(pts) < 2:
        return None
    lx, ly = np.array(pts).T
    return float(np.polyfit(lx, ly, 1)[0])


def size_value(family: str, setting, n_triplets=None):
    return n_triplets if family == "ls_ad_vc_T" else setting


def run_family(name: str, settings, repeats: int) -> list[dict]:
    unit, _, _, _, setup = FAMILIES[name]
    rows = []
    for s in settings:
        fn = setup(s)
        fn()  # warm-up: numba cache load, first touch
        wall, cpu = [], []
        for _ in range(repeats):
            w, c = time.perf_counter(), time.process_time()
            fn()
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        mem = peak_added_mb(fn)
        size = s
        if name == "ls_ad_vc_T":  # the size is |T|: count the triplets of this fraction
            ds = ccexp.load_dataset("synthetic_labels", n=160, k=8, random_state=0)
            size = int(ccexp.make_problem("triplets", ds, fraction=s, noise=0.2, random_state=0).triplets.shape[0])
        rows.append({"family": name, "unit": unit, "size": size, "wall_s": statistics.median(wall),
                     "cpu_s": statistics.median(cpu), "peak_added_MB": mem})
        print(f"  {name} {unit}={size}: cpu {rows[-1]['cpu_s']:.4f} s, wall {rows[-1]['wall_s']:.4f} s, "
              f"+{mem:.1f} MB", flush=True)
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    out = []
    for name in dict.fromkeys(r["family"] for r in rows):
        rs = [r for r in rows if r["family"] == name]
        xs = [r["size"] for r in rs]
        mem = [(x, r["peak_added_MB"]) for x, r in zip(xs, rs) if r["peak_added_MB"] >= 1.0]
        out.append({
            "family": name, "in": rs[0]["unit"], "sizes": f"{xs[0]:,} .. {xs[-1]:,}",
            "cpu at largest": f"{rs[-1]['cpu_s']:.3g} s", "time slope": slope(xs, [r["cpu_s"] for r in rs]),
            "peak added at largest": f"{rs[-1]['peak_added_MB']:.1f} MB",
            "memory slope": slope(*zip(*mem)) if len(mem) >= 2 else None,
            "stated": FAMILIES[name][3],
        })
    for o in out:
        for k in ("time slope", "memory slope"):
            o[k] = "—" if o[k] is None else f"{o[k]:.2f}"
    return out


def figure(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(13, 5.5))
    names = list(dict.fromkeys(r["family"] for r in rows))
    colours = plt.get_cmap("tab20")
    for i, name in enumerate(names):
        # one colour and marker per family in both panels (the default cycle has 10 colours)
        style = {"color": colours(i % 20), "marker": "osD^v<>"[i % 7], "label": name}
        rs = [r for r in rows if r["family"] == name]
        xs = [r["size"] for r in rs]
        ax_t.loglog(xs, [r["cpu_s"] for r in rs], "-", **style)
        mem = [(x, r["peak_added_MB"]) for x, r in zip(xs, rs) if r["peak_added_MB"] >= 1.0]
        if mem:
            ax_m.loglog(*zip(*mem), "-", **style)
    ax_t.set(xlabel="size (n, N or number of triplets)", ylabel="CPU seconds per call", title="time")
    ax_m.set(xlabel="size (n, N or number of triplets)", ylabel="peak memory added by one call (MB)", title="memory")
    for ax in (ax_t, ax_m):
        ax.grid(True, which="both", alpha=0.3)
    ax_t.legend(fontsize=7)
    ax_m.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="the larger sweep; writes scaling.md/png beside this script")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--families", default=None, help=f"comma-separated subset of {', '.join(FAMILIES)}")
    ap.add_argument("--out", type=Path, default=None, help="folder for the JSON (default results/bench/)")
    ap.add_argument("--render", type=Path, default=None,
                    help="only write scaling.md/png again from a JSON this script wrote (no measuring)")
    args = ap.parse_args(argv)
    if args.render is not None:
        data = json.loads(args.render.read_text())
        write_page(data["tables"]["rows"], int(data["repeats"]))
        return 0
    names = list(FAMILIES) if args.families is None else args.families.split(",")
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown:
        ap.error(f"unknown families {unknown}; choose from {list(FAMILIES)}")

    _malloc_returns_memory()
    t0 = time.perf_counter()
    rows = []
    for name in names:
        settings = FAMILIES[name][2] if args.full else FAMILIES[name][1]
        rows += run_family(name, settings, args.repeats)
    summary = summarise(rows)
    cols = ["family", "in", "sizes", "cpu at largest", "time slope", "peak added at largest", "memory slope", "stated"]
    table = markdown_table(summary, cols)
    print("\n" + table)
    print(f"\n{time.perf_counter() - t0:.0f} s in all")
    write_results("bench_scaling", {"rows": rows, "summary": summary},
                  extra={"full": args.full, "repeats": args.repeats}, out_dir=args.out)
    if args.full:
        write_page(rows, args.repeats)
    return 0


def write_page(rows: list[dict], repeats: int) -> None:
    """``scaling.md`` (summary and every measurement) and ``scaling.png`` beside this script."""
    summary = summarise(rows)
    cols = ["family", "in", "sizes", "cpu at largest", "time slope", "peak added at largest", "memory slope", "stated"]
    md = HERE / "scaling.md"
    md.write_text(
        "# How cost grows (scripts/bench/bench_scaling.py --full)\n\n"
        "Slopes of least-squares lines through log size and log CPU seconds (median of "
        f"{repeats} calls after a warm-up) and log peak memory added by one call (sizes where it "
        "added under 1 MB left out); written by the script, see its docstring for the instances. "
        "The stated complexity is the algorithm's own, from its module. Figure: "
        "[scaling.png](scaling.png).\n\n"
        + markdown_table(summary, cols) + "\n\n## Every measurement\n\n"
        + markdown_table(rows, ["family", "unit", "size", "cpu_s", "wall_s", "peak_added_MB"]) + "\n")
    figure(rows, HERE / "scaling.png")
    print(f"written: {md}, {HERE / 'scaling.png'}")


if __name__ == "__main__":
    raise SystemExit(main())
