"""The Ray pool against a real local Ray cluster: results, balance by work, and lost actors."""

import threading
import time

import pytest

from nemo_code_rl import Program, Verdict
from nemo_code_rl.engine.balance import split_by_work
from nemo_code_rl.engine.ray_pool import RayExecutionPool

from ..cancellation import check_cancelled_programs
from .conftest import ACTOR_OPTIONS, TEST_LIMITS

DOUBLE = "print(int(input()) * 2)"


@pytest.fixture(scope="module")
def ray_pool(ray_cluster):
    with RayExecutionPool(
        num_actors=2, workers_per_actor=1, limits=TEST_LIMITS, actor_options=ACTOR_OPTIONS
    ) as pool:
        yield pool


def test_split_by_work_balances_tests_not_programs():
    weights = [100] + [1] * 100 + [50, 50]
    chunks = split_by_work(weights, 3)
    totals = sorted(sum(weights[i] for i in chunk) for chunk in chunks)
    assert totals == [100, 100, 100]
    assert sorted(i for chunk in chunks for i in chunk) == list(range(len(weights)))
    assert split_by_work([5, 1], 8) == [[0], [1]]


def test_results_in_input_order_with_one_result_per_input(ray_pool):
    programs = [Program(DOUBLE, [str(i), str(i + 1)]) for i in range(40)] + [Program("print('x')", [])]
    results = ray_pool.run_batch(programs)
    assert len(results) == len(programs)
    for i, result in enumerate(results[:-1]):
        assert [r.stdout for r in result] == [f"{2 * i}\n", f"{2 * (i + 1)}\n"]
    assert results[-1] == []
    assert ray_pool.isolation == "full" and ray_pool.size == 2


def test_chunks_are_balanced_by_work(ray_pool):
    heavy = Program(DOUBLE, [str(i) for i in range(100)])
    light = [Program(DOUBLE, ["1"]) for _ in range(100)]
    results = ray_pool.run_batch([heavy, *light])
    assert [r.stdout for r in results[0]] == [f"{2 * i}\n" for i in range(100)]
    assert ray_pool.last_chunk_work[0] == 100, "the 100-test program is a chunk of its own"
    assert sorted(ray_pool.last_chunk_work[1:]) == [14, 14, 14, 14, 14, 15, 15]
    assert sum(ray_pool.last_chunk_work) == 200


def test_progress_and_stop_when_use_the_callers_program_indices(ray_pool):
    seen = []
    source = "import time\nx = int(input())\ntime.sleep(0.05)\nprint(x)"
    programs = [Program(source, [str(i) for i in range(20)]) for _ in range(3)]
    results = ray_pool.run_batch(
        programs,
        progress=lambda done, total: seen.append((done, total)),
        stop_when=lambda program, test, result: program == 1 and result.stdout == "2\n",
    )
    stopped = [r.verdict for r in results[1]]
    assert stopped[:3] == [Verdict.OK] * 3 and stopped.count(Verdict.NOT_RUN) >= 10
    assert [r.stdout for r in results[0]] == [r.stdout for r in results[2]] == [f"{i}\n" for i in range(20)]
    assert seen[-1] == (3, 3)


def test_cancelled_programs_stop_mid_input_or_never_start(ray_pool):
    """The caller's check stays in the caller: the pool passes what it cancels to the actors."""
    check_cancelled_programs(ray_pool)
    assert ray_pool.replaced_actors == 0


def test_killing_actors_mid_batch_still_returns_every_result(ray_cluster):
    with RayExecutionPool(
        num_actors=2, workers_per_actor=1, limits=TEST_LIMITS, actor_options=ACTOR_OPTIONS
    ) as pool:
        victims = list(pool.actors)
        programs = [
            Program("import time\ntime.sleep(0.05)\nprint(int(input()) + 1)", [str(i)]) for i in range(60)
        ]

        def kill_both() -> None:
            time.sleep(0.8)
            for actor in victims:
                ray_cluster.kill(actor)

        killer = threading.Thread(target=kill_both)
        killer.start()
        results = pool.run_batch(programs)
        killer.join()
        assert pool.replaced_actors == 2
        assert [r[0].stdout for r in results] == [f"{i + 1}\n" for i in range(60)]
        assert all(a is not v for a, v in zip(pool.actors, victims, strict=True))
        assert [r[0].stdout for r in pool.run_batch(programs[:4])] == ["1\n", "2\n", "3\n", "4\n"]


def test_one_actor_per_node_sized_to_its_cpus(ray_cluster):
    with RayExecutionPool(limits=TEST_LIMITS, actor_options=ACTOR_OPTIONS) as pool:
        assert len(pool.actors) == 1 and pool.size == 2
        assert pool.run(Program(DOUBLE, ["21"]))[0].stdout == "42\n"


def test_a_closed_pool_refuses_work(ray_cluster):
    pool = RayExecutionPool(
        num_actors=1, workers_per_actor=1, limits=TEST_LIMITS, actor_options=ACTOR_OPTIONS
    )
    pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        pool.run_batch([Program(DOUBLE, ["1"])])


def test_benchmark_row_of_the_ray_pool(ray_cluster):
    from nemo_code_rl.benchmarking.backend_rows import measure_backends

    programs = [Program(DOUBLE, [str(i)]) for i in range(10)]
    (run,) = measure_backends(programs, ["ray"], workers=2, timeout_s=3, repeats=2, emit=print)
    assert run.key == "a_ray" and len(run.times) == 2
    assert [r[0].stdout for r in run.results] == [f"{2 * i}\n" for i in range(10)]
