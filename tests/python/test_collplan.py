"""The collplan Python module: every collective on cpu-threads against NumPy references, plans and
bundles, the tools as functions, and the errors bad arguments get."""

import os
import sys
import tempfile
import unittest

import numpy as np

import collplan

REPO = os.environ.get("COLLPLAN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BUNDLE = os.path.join(REPO, "plans", "bundles", "trn2", "bundle.json")
DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8]


def contribution(rank, count, dtype):
    """Rank r's input: small integers, exact in every dtype and in any summation order."""
    return ((np.arange(count) + 3 * rank) % 5 + 1).astype(dtype)


class Collectives(unittest.TestCase):
    """Each collective on 2, 3 and 4 thread ranks, odd counts and count 0, compared with NumPy."""

    def check(self, ranks, body, reference):
        results = collplan.run_threads(ranks, body)
        for rank, got in enumerate(results):
            want = reference(rank)
            if want is None:
                self.assertIsNone(got, f"rank {rank}")
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"rank {rank} of {ranks}")

    def test_allreduce_every_op_and_dtype(self):
        for ranks in (2, 3, 4):
            for dtype in DTYPES:
                for op, fold in (("sum", np.sum), ("prod", np.prod), ("min", np.min), ("max", np.max)):
                    count = 7
                    inputs = [contribution(r, count, dtype) for r in range(ranks)]
                    want = fold(np.stack(inputs), axis=0).astype(dtype)
                    with self.subTest(ranks=ranks, dtype=dtype.__name__, op=op):
                        self.check(ranks, lambda c: c.allreduce(inputs[c.rank], op=op), lambda r: want)

    def test_allreduce_in_place_and_count_zero(self):
        def body(comm):
            x = contribution(comm.rank, 1001, np.float32)
            comm.allreduce(x, x)
            empty = comm.allreduce(np.zeros(0, dtype=np.float32))
            return np.concatenate([x, empty])
        want = sum(contribution(r, 1001, np.float32) for r in range(3))
        self.check(3, body, lambda r: want)

    def test_allgather_and_reduce_scatter(self):
        ranks, count = 3, 5
        inputs = [contribution(r, count, np.int64) for r in range(ranks)]
        self.check(ranks, lambda c: c.allgather(inputs[c.rank]), lambda r: np.concatenate(inputs))
        full = [contribution(r, count * ranks, np.float64) for r in range(ranks)]
        total = sum(full)
        self.check(ranks, lambda c: c.reduce_scatter(full[c.rank]),
                   lambda r: total[r * count:(r + 1) * count])

    def test_alltoall(self):
        ranks, block = 4, 3
        inputs = [contribution(r, block * ranks, np.int32) for r in range(ranks)]
        def reference(r):
            return np.concatenate([inputs[s][r * block:(r + 1) * block] for s in range(ranks)])
        self.check(ranks, lambda c: c.alltoall(inputs[c.rank]), reference)

    def test_rooted_collectives(self):
        ranks, count, root = 3, 9, 2
        inputs = [contribution(r, count, np.float32) for r in range(ranks)]
        def broadcast(c):
            buffer = inputs[c.rank].copy()
            return c.broadcast(buffer, root=root)
        self.check(ranks, broadcast, lambda r: inputs[root])
        self.check(ranks, lambda c: c.reduce(inputs[c.rank], op="max", root=root),
                   lambda r: np.max(np.stack(inputs), axis=0) if r == root else None)
        self.check(ranks, lambda c: c.gather(inputs[c.rank], root=root),
                   lambda r: np.concatenate(inputs) if r == root else None)
        blocks = contribution(7, count * ranks, np.float32)
        def scatter(c):
            recv = np.zeros(count, dtype=np.float32)
            return c.scatter(blocks if c.rank == root else None, recv, root=root)
        self.check(ranks, scatter, lambda r: blocks[r * count:(r + 1) * count])

    def test_barrier_and_communicator_facts(self):
        results = collplan.run_threads(2, lambda c: (c.barrier(), c.rank, c.size))
        self.assertEqual(results, [(None, 0, 2), (None, 1, 2)])


class BadArguments(unittest.TestCase):
    """Each bad argument is an exception naming it; never a crash or a hang."""

    def raises(self, error, text, body):
        with self.assertRaises(error) as caught:
            collplan.run_threads(1, body)
        self.assertIn(text, str(caught.exception))

    def test_buffers(self):
        self.raises(TypeError, "dtype complex64 is not supported",
                    lambda c: c.allreduce(np.zeros(4, dtype=np.complex64)))
        self.raises(TypeError, "send must be C-contiguous",
                    lambda c: c.allreduce(np.zeros((4, 4), dtype=np.float32)[:, 1]))
        read_only = np.zeros(4, dtype=np.float32)
        read_only.flags.writeable = False
        self.raises(ValueError, "recv is read-only", lambda c: c.allreduce(read_only, read_only))
        self.raises(ValueError, "recv has 3 elements, this call needs 4",
                    lambda c: c.allreduce(np.zeros(4, dtype=np.float32), np.zeros(3, dtype=np.float32)))
        self.raises(TypeError, "send and recv must have the same dtype",
                    lambda c: c.allreduce(np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.float64)))
        self.raises(ValueError, 'unknown reduction op "avg"',
                    lambda c: c.allreduce(np.zeros(4, dtype=np.float32), op="avg"))

    def test_collplan_errors_carry_the_status(self):
        with self.assertRaises(collplan.Error) as caught:
            collplan.run_threads(2, lambda c: c.broadcast(np.zeros(4, dtype=np.float32), root=5))
        self.assertIn("root 5", str(caught.exception))
        self.assertEqual(caught.exception.status, 1)  # COLLPLAN_ERROR_INVALID_ARGUMENT

    def test_a_communicator_kept_past_its_world(self):
        kept = collplan.run_threads(1, lambda c: c)[0]
        with self.assertRaises(collplan.Error) as caught:
            kept.barrier()
        self.assertIn("belonged to a run_threads world that has ended", str(caught.exception))


class PlansAndTools(unittest.TestCase):
    def test_bundle_inspection(self):
        bundle = collplan.load_bundle(BUNDLE)
        self.assertEqual(bundle.ranks, 64)
        table = bundle.tables[0]
        self.assertEqual(table.buckets[0].min_bytes, 0)
        self.assertEqual(table.buckets[-1].max_bytes, 2**64 - 1)
        bucket = table.lookup(1 << 20)
        self.assertLessEqual(bucket.min_bytes, 1 << 20)
        self.assertEqual(bucket.algorithm, bucket.plan.algorithm)
        self.assertGreater(bucket.winner["measured_us"], 0)
        self.assertEqual(bucket.plan.to_dict()["format"], "collplan-plan")

    def test_compile_save_verify_load(self):
        plan = collplan.compile("allreduce", 4, "ring", params={"channels": 2})
        self.assertEqual((plan.collective, plan.ranks, plan.op, plan.algorithm), ("allreduce", 4, "sum", "ring"))
        self.assertEqual(plan.channels, [2, 2, 2, 2])
        self.assertAlmostEqual(plan.predicted["beta"], 1.5)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ring.json")
            plan.save(path)
            self.assertEqual(collplan.plan_verify(path), {"file": path, "ok": True, "plans": 1, "problems": []})
            self.assertEqual(collplan.load_plan(path).num_ops, plan.num_ops)
            with open(path, "w") as f:
                f.write("{}")
            report = collplan.plan_verify(path)
            self.assertFalse(report["ok"])
            with self.assertRaises(collplan.PlanError):
                collplan.load_plan(path)
        with self.assertRaises(ValueError) as caught:
            collplan.compile("allreduce", 4, "ring", params={"colour": 1})
        self.assertIn('unknown key "colour"', str(caught.exception))

    def test_deep_files_are_errors(self):
        """A file of nested arrays crashed load_plan (SIGSEGV); now it is a PlanError."""
        with tempfile.TemporaryDirectory() as d:
            for name, text in (("deep.plan.json", '{"params": ' + "[" * 400000 + "]" * 400000 + "}"),
                               ("deep.bundle.cbor", None)):
                path = os.path.join(d, name)
                if text is None:
                    with open(path, "wb") as f:
                        f.write(b"\xa1\x68topology" + b"\x81" * 1000000 + b"\x00")
                else:
                    with open(path, "w") as f:
                        f.write(text)
                load = collplan.load_bundle if "bundle" in name else collplan.load_plan
                with self.assertRaises(collplan.PlanError) as caught:
                    load(path)
                self.assertIn("nest deeper than 64 levels", str(caught.exception))

    def test_bench_returns_rows(self):
        result = collplan.bench(ranks=2, collective="allgather", max_bytes=4096, step_factor=8, reps=3)
        self.assertEqual([row["size"] for row in result["rows"]], [8, 64, 512, 4096])
        self.assertTrue(all(row["wrong"] == 0 and row["time_us"] > 0 for row in result["rows"]))
        with self.assertRaises(ValueError) as caught:
            collplan.bench(ranks=0)
        self.assertIn("--ranks must be between 1 and 4096, got 0", str(caught.exception))

    @unittest.skipUnless(hasattr(collplan, "tune"), "this build has no compiler (plan-tune)")
    def test_tune_on_the_simulator(self):
        result = collplan.tune(collectives=["allreduce"], backend="sim", topology="ring:4",
                               max_bytes=1 << 16, quick=True)
        bundle = result["bundle"]
        self.assertEqual(bundle.ranks, 4)
        self.assertEqual(result["tables"][0]["name"], "allreduce f32 sum")
        self.assertGreater(result["tables"][0]["measured"], 1)
        self.assertEqual(bundle.tables[0].buckets[0].min_bytes, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
