"""Gunicorn settings for pit's web process, read from the environment so one file serves every host.

Used by deploy/pit-web.service, the compose `web` service and .ci/run:
    gunicorn --config deploy/gunicorn.conf.py pit.wsgi:application
Every GUNICORN_* variable below is documented in deploy/env.example.
"""

import os


def _cores() -> int:
    # The cores this process may run on (a cgroup/cpuset limit), not every core of the host.
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


wsgi_app = "pit.wsgi:application"
# Loopback by default: nginx (deploy/nginx-pit.conf) is the only client. Compose sets 0.0.0.0:8000.
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")
# One synchronous worker per core and one more (each holds one database connection). Not gunicorn's
# rule of thumb (2 x cores + 1): a device request is CPU in Python but for a few short database
# round trips, so workers beyond the cores only take turns on them and lengthen every request's
# tail. Measured with bench_post (25 coups/s, 2 cores, shared, load 3-5): 5 workers p99 111 and
# 130 ms (12 and 33 requests over 250 ms), 3 workers 43 and 70 ms (1 and 0). Threads would not
# help: the work holds the GIL. Raise GUNICORN_WORKERS for a web with slow requests to wait out.
workers = int(os.environ.get("GUNICORN_WORKERS", _cores() + 1))
worker_class = "sync"
# A request that takes longer than this is killed and its worker restarted: the back-office has
# no long requests (exports run in Celery). nginx's proxy_read_timeout is longer than this.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", 30))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", 30))
# Recycle workers now and then so a slow leak never grows. Requests spread evenly over the workers,
# so they all reach max_requests together: the jitter (half of it by default) spreads their
# restarts over a wide window instead of a few seconds in which every worker restarts at once.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", 2000))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", max_requests // 2))
# Worker heartbeats in memory, not on a disk that may stall (the gunicorn docs' advice for containers).
# gunicorn makes its files there with mkstemp, so the shared directory is safe.
_shm = "/dev/shm"  # noqa: S108
worker_tmp_dir = _shm if os.path.isdir(_shm) else None

# ---------------------------------------------------------------- Proxy
# Only nginx may say a request came over HTTPS, and only with the one header Django trusts
# (SECURE_PROXY_SSL_HEADER in pit/settings/production.py); the other two gunicorn knows are ignored.
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
secure_scheme_headers = {"X-FORWARDED-PROTO": "https"}

# ---------------------------------------------------------------- Logging
# To stdout/stderr: journald (systemd) or `docker compose logs` keeps them.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-")
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# The client as nginx saw it, and the time taken in microseconds, on every line.
access_log_format = '%({x-forwarded-for}i)s %(h)s %(u)s %(t)s "%(r)s" %(s)s %(b)s %(D)sus "%(a)s"'
proc_name = "pit-web"

# Gunicorn 25.1+ opens a control socket under $HOME by default; a service user has no home worth
# writing to and two instances on one host would collide. Older gunicorns ignore this name.
control_socket_disable = True


# ---------------------------------------------------------------- Warm workers
# Workers boot one at a time (a lock under worker_tmp_dir, taken at fork, released once warm): when
# every worker was killed at once they all booted together, sharing the cores, and none answered
# until all had loaded (84 s on a busy host, past gunicorn's timeout, which killed them again). One
# at a time, the first answers after one boot and the others follow; a booting worker keeps its
# heartbeat fresh, so the timeout only ever kills a stuck request. tests/benchmarks/bench_restart.py
# measures the time to the first answer after every worker is killed.
_boot_locks: dict[int, object] = {}


def _boot_lock_path(master_pid: int) -> str:
    import tempfile

    return os.path.join(worker_tmp_dir or tempfile.gettempdir(), f"pit-web-boot-{master_pid}.lock")


def post_fork(server, worker):
    """Wait for the worker before this one to finish booting (its heartbeat kept fresh meanwhile)."""
    import fcntl
    import time

    lock = open(_boot_lock_path(server.pid), "a")  # noqa: SIM115 - held until warm, closed by release
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            worker.notify()
            time.sleep(0.1)
    _boot_locks[os.getpid()] = lock


def post_worker_init(worker):
    """Load and connect everything a first request would do lazily (pit/core/warmup.py: the URLconf
    with every view, openpyxl, the Celery tasks, DRF's classes; the database, broker and cache
    connections, bounded) before the worker takes a request: a fresh worker then answers its first
    coup as fast as its thousandth. Not preload_app: with it, a HUP (systemctl reload pit-web) would
    keep serving the old code."""
    import gc
    import time

    from pit.core.warmup import warm_process

    started = time.perf_counter()
    try:
        warm_process(notify=worker.notify if worker is not None else (lambda: None))
        # What is loaded now lives as long as the worker: out of the cyclic collector's reach, so
        # that a full collection scans only what requests made since (before: ~155,000 objects,
        # 340-380 ms on the 2-core machine, a stall of whatever request was running when one fell due).
        gc.collect()
        gc.freeze()
    finally:
        lock = _boot_locks.pop(os.getpid(), None)
        if lock is not None:
            lock.close()  # the next worker boots
    if worker is not None:
        worker.log.info("Worker %s warmed up in %.2f s", os.getpid(), time.perf_counter() - started)
