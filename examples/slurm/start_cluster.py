"""Start a dask-jobqueue SLURMCluster for ccexp sweeps and keep it up (docs/cluster.md).

Run on the login node (in tmux or screen), with DASK_CONFIG pointing to the
folder of jobqueue.yaml::

    DASK_CONFIG=examples/slurm python examples/slurm/start_cluster.py --max-jobs 8

It prints the scheduler address to pass as ``runner.address``.  Every
setting is in jobqueue.yaml; this script only chooses how many jobs.
"""

import argparse
import time

from dask_jobqueue import SLURMCluster

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--max-jobs", type=int, default=4, help="at most this many SLURM jobs at a time")
parser.add_argument("--print-job-script", action="store_true", help="show the sbatch script and exit")
args = parser.parse_args()

cluster = SLURMCluster()  # everything from jobqueue.slurm in the dask config
if args.print_job_script:
    print(cluster.job_script())
    cluster.close()
    raise SystemExit
# Jobs are submitted while tasks wait and cancelled when idle.
cluster.adapt(minimum_jobs=0, maximum_jobs=args.max_jobs)
print(f"scheduler: {cluster.scheduler_address}  (dashboard {cluster.dashboard_link})", flush=True)
print(f"run: python -m ccexp +experiment=NAME runner=dask runner.address={cluster.scheduler_address}", flush=True)
try:
    while True:
        time.sleep(60)
except KeyboardInterrupt:
    cluster.close()
