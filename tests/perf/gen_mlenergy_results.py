"""Writes a large ML.ENERGY Benchmark results.json (and prometheus.json) for
tests/perf/bench.sh: the shape of mlenergy/benchmark/llm/benchmark.py's
output, with long prompt and output texts (what makes real files tens of MB)
and every request's ITL list.

    gen_mlenergy_results.py OUT_RUN_DIR TARGET_MB"""
import json
import os
import random
import sys

out, target_mb = sys.argv[1], float(sys.argv[2])
os.makedirs(out, exist_ok=True)
rng = random.Random(7)
T0 = 1700000000.0
G = 8
dur = 600.0
words = ("the energy of a token depends on the batch the server runs, \"quoted\" text,\n"
         "unicode \u00e9\u4e2d and a backslash \\ too; ").split(" ")


def text(n):
    return " ".join(rng.choice(words) for _ in range(n))


power = {"device_instant": {}, "device_average": {}, "memory_average": {}}
for g in range(G):
    t, inst, avg = T0, [], []
    while t < T0 + dur:
        inst.append([round(t, 4), round(300 + 300 * rng.random(), 2)])
        avg.append([round(t, 4), round(450 + 20 * rng.random(), 2)])
        t += 0.1
    power["device_instant"][str(g)] = inst
    power["device_average"][str(g)] = avg[::10]
    power["memory_average"][str(g)] = avg[::10]
head = {"date": "20261123-120000", "model_id": "org/Big-70B", "gpu_model": "H100", "num_gpus": G,
        "max_num_seqs": 256, "max_num_batched_tokens": None, "request_rate": "inf",
        "burstiness": 1.0, "duration": dur, "completed": 0,
        "steady_state_duration": 500.0, "steady_state_energy": 2.0e6,
        "steady_state_energy_per_token": 0.5, "total_output_tokens": 0,
        "steady_state_measurement": {"time": 500.0, "gpu_energy": {str(g): 2.5e5 for g in range(G)}},
        "entire_benchmark_measurement": {"time": dur, "gpu_energy": {str(g): 3e5 for g in range(G)}},
        "timeline": {"benchmark_start_time": T0, "benchmark_end_time": T0 + dur,
                     "steady_state_start_time": T0 + 50, "steady_state_end_time": T0 + 550,
                     "power": power,
                     "temperature": {str(g): [[T0, 40.0], [T0 + 300, 60.0]] for g in range(G)}},
        "median_itl_ms": 30.0, "p90_itl_ms": 45.0}
# the requests: written one by one until the file reaches the target size
path = os.path.join(out, "results.json")
with open(path, "w") as f:
    body = json.dumps(head, indent=2)
    f.write(body[:-2] + ',\n  "results": [\n')
    target = target_mb * 1e6
    k = 0
    while f.tell() < target:
        n_out = rng.randint(50, 1500)
        ttft = rng.uniform(0.1, 30)
        itl = [round(rng.uniform(0.01, 0.06), 6) for _ in range(n_out - 1)]
        r = {"prompt": text(rng.randint(200, 3000)), "output_text": text(n_out),
             "reasoning_output_text": text(rng.randint(0, 2000)),
             "input_len": rng.randint(100, 4000), "output_len": n_out, "dataset_output_len": n_out,
             "latency": ttft + sum(itl), "ttft": ttft, "itl": itl, "success": True, "error": "",
             "energy": 10.0}
        f.write((",\n" if k else "") + "    " + json.dumps(r))
        k += 1
    f.write("\n  ]\n}\n")
print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB, {k} requests")
