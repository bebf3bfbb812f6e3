"""Regenerate ``dvc.lock`` from the committed state: ``python scripts/dvc_lock.py``.

``dvc.lock`` records the hashes of every stage's dependencies and outputs
(code, configs, ``params.yaml``, ``reference.csv``, the committed
``run.json`` files and reports).  Committed, it makes ``dvc status`` on a
fresh clone say "up to date" and ``dvc repro`` rerun only what a later
change touched (issue 32).  It goes stale whenever a commit changes one of
those files, e.g. a new paper-scale report; ``tests/test_dvc.py`` then fails
(slow tier) and names this command.

The lock is made in a fresh clone of ``HEAD`` (``--rev`` another commit),
never in the working copy: there, untracked reports, ``__pycache__`` or a
user's own run would end up in the hashes.  In the clone, ``dvc commit``
hashes what is there without running any stage; the lock is then copied
into the working copy, to be committed::

    python scripts/dvc_lock.py && git add dvc.lock && git commit -m "dvc.lock: regenerated"

Needs DVC (``pip install -e '.[repro]'``).
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dvc(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m dvc ARGS`` in ``cwd``, without the caller's DVC_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DVC_")}
    return subprocess.run([sys.executable, "-m", "dvc", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=1800)


def lock_of(rev: str = "HEAD", repo: Path = ROOT) -> str:
    """The ``dvc.lock`` text that matches commit ``rev`` of ``repo`` (made in a clone of it).

    Raises
    ------
    RuntimeError
        When ``git clone`` or ``dvc commit`` fails, with their output.
    """
    with tempfile.TemporaryDirectory(prefix="ccexp-dvc-lock-") as tmp:
        clone = Path(tmp) / "clone"
        git = subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(repo), str(clone)],
                             capture_output=True, text=True)
        if git.returncode == 0:
            git = subprocess.run(["git", "checkout", "--quiet", rev], cwd=clone, capture_output=True, text=True)
        if git.returncode != 0:
            raise RuntimeError(f"git could not check out {rev} of {repo}: {git.stderr.strip()}")
        (clone / "dvc.lock").unlink(missing_ok=True)  # hashed afresh, not carried over
        done = dvc(["commit", "--force", "--quiet"], clone)
        if done.returncode != 0:
            raise RuntimeError(f"dvc commit failed in a clone of {rev}:\n{done.stdout}{done.stderr}")
        return (clone / "dvc.lock").read_text()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the commit whose files the lock describes (default: HEAD)")
    parser.add_argument("--check", action="store_true",
                        help="only compare: exit 1 when the committed dvc.lock is not the one of --rev")
    args = parser.parse_args(argv)
    if shutil.which("git") is None:
        print("dvc_lock: git is needed", file=sys.stderr)
        return 2
    fresh = lock_of(args.rev)
    path = ROOT / "dvc.lock"
    old = path.read_text() if path.is_file() else ""
    if args.check:
        if fresh == old:
            print("dvc.lock matches", args.rev)
            return 0
        diff = difflib.unified_diff(old.splitlines(), fresh.splitlines(), "dvc.lock", f"dvc.lock of {args.rev}",
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:60]), file=sys.stderr)
        print(f"dvc.lock is stale: run python scripts/dvc_lock.py and commit dvc.lock", file=sys.stderr)
        return 1
    path.write_text(fresh)
    changed = sum(1 for line in difflib.ndiff(old.splitlines(), fresh.splitlines()) if line[:1] in "+-")
    print(f"{path}: {'unchanged' if fresh == old else f'{changed} lines changed'} (the files of {args.rev}); "
          f"commit it: git add dvc.lock && git commit -m 'dvc.lock: regenerated'")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
