"""Writes the ML.ENERGY Benchmark fixtures in tests/fixtures/mlenergy-benchmark/:
small run directories shaped like the harness's results.json / prometheus.json
(ml-energy/benchmark mlenergy/benchmark/llm/benchmark.py, prometheus.py,
diffusion/benchmark.py), with round numbers whose figures are worked out by
hand in docs/import.md and tests/golden/cases/import_mlenergy_benchmark*.
Run from the source tree: python3 tests/import/make_mlenergy_bench_fixtures.py"""
import json
import os
import shutil

ROOT = "tests/fixtures/mlenergy-benchmark/run"
T0 = 1700000000.0


def expo(engines, running, waiting, kv, gen, prompt):
    """vLLM-style exposition text: comments, one sample per engine, a histogram."""
    lines = ["# HELP vllm:num_requests_running Number of requests in model execution batches.",
             "# TYPE vllm:num_requests_running gauge"]
    for e in range(engines):
        lab = f'engine="{e}",model_name="org/m \\"q\\""'
        lines.append(f"vllm:num_requests_running{{{lab}}} {running[e]}")
        lines.append(f"vllm:num_requests_waiting{{{lab}}} {waiting[e]}")
        lines.append(f"vllm:kv_cache_usage_perc{{{lab}}} {kv[e]}")
        lines.append(f"vllm:generation_tokens_total{{{lab}}} {gen[e]}")
        lines.append(f"vllm:prompt_tokens_total{{{lab}}} {prompt[e]}")
        lines.append(f'vllm:inter_token_latency_seconds_bucket{{{lab},le="0.1"}} 3')
        lines.append(f'vllm:inter_token_latency_seconds_bucket{{{lab},le="+Inf"}} 4')
        lines.append(f"vllm:inter_token_latency_seconds_sum{{{lab}}} 0.5")
        lines.append(f"vllm:inter_token_latency_seconds_count{{{lab}}} 4")
    lines.append("process_cpu_seconds_total 12.5 1700000000000")
    return "\n".join(lines) + "\n"


def write(d, results, prom=None):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    if prom is not None:
        with open(os.path.join(d, "prometheus.json"), "w") as f:
            json.dump(prom, f, indent=1)


def meas(t, *gpu):
    return {"time": t, "gpu_energy": {str(i): e for i, e in enumerate(gpu)},
            "cpu_energy": None, "dram_energy": None, "soc_energy": None}


def request(ttft, lat, out, inp=10, ok=True):
    # out tokens: the first at ttft, the rest evenly to latency
    itl = [(lat - ttft) / (out - 1)] * (out - 1) if ok and out > 1 else []
    return {"prompt": "a long prompt \"quoted\"\nline two \u00e9", "output_text": "x" * 50,
            "reasoning_output_text": "", "input_len": inp, "output_len": out,
            "dataset_output_len": out, "latency": lat, "ttft": ttft, "itl": itl,
            "success": ok, "error": "" if ok else "boom", "energy": 1.0}


def llm(model, gpus, seqs, rate, power, reqs, ss, extra_gpu_energy=None):
    res = {"date": "20261123-120000", "endpoint_type": "openai-chat", "model_id": model,
           "seed": 48105, "num_unique_prompts": len(reqs), "num_prompts": len(reqs),
           "num_request_repeats": 1, "gpu_model": "H100", "num_gpus": gpus,
           "max_num_seqs": seqs, "max_num_batched_tokens": None,
           "request_rate": rate, "burstiness": 1.0, "max_concurrency": None,
           "max_output_tokens": None,
           "duration": 10.0, "completed": sum(r["success"] for r in reqs),
           "steady_state_duration": ss[1] - ss[0], "steady_state_energy": ss[2],
           "steady_state_energy_per_token": ss[3],
           "total_input_tokens": sum(r["input_len"] for r in reqs),
           "total_output_tokens": sum(r["output_len"] for r in reqs),
           "request_throughput": 0.4, "output_throughput": 3.0, "total_token_throughput": 7.0,
           "steady_state_measurement": meas(ss[1] - ss[0], *([ss[2] / gpus] * gpus)),
           "entire_benchmark_measurement": meas(10.0, *(extra_gpu_energy or [2200.0] * gpus)),
           "timeline": {"benchmark_start_time": T0, "benchmark_end_time": T0 + 10,
                        "steady_state_start_time": T0 + ss[0], "steady_state_end_time": T0 + ss[1],
                        "power": power,
                        "temperature": {str(g): [[T0, 40.0], [T0 + 5, 50.0]] for g in range(gpus)}},
           "mean_ttft_ms": 2250.0, "median_ttft_ms": 2000.0, "std_ttft_ms": 1.0, "p90_ttft_ms": 3700.0,
           "mean_tpot_ms": 500.0, "median_tpot_ms": 500.0, "std_tpot_ms": 0.0, "p90_tpot_ms": 500.0,
           "mean_itl_ms": 500.0, "median_itl_ms": 500.0, "std_itl_ms": 0.0, "p90_itl_ms": 500.0,
           "p95_itl_ms": 500.0, "p99_itl_ms": 500.0,
           "results": reqs}
    return res


def main():
    shutil.rmtree("tests/fixtures/mlenergy-benchmark", ignore_errors=True)
    # 1. LLM, one GPU, request_rate inf. Power (Zeus, sample-and-hold):
    # 100 W from 0 s, 300 W from 2 s, 100 W from 8 s, to the end at 10 s:
    # 100x2 + 300x6 + 100x2 = 2200 J.
    p1 = {"device_instant": {"0": [[T0, 100.0], [T0 + 2, 300.0], [T0 + 8, 100.0]]},
          "device_average": {"0": [[T0, 100.0], [T0 + 3, 250.0]]},
          "memory_average": {"0": [[T0, 20.0]]}}
    r1 = [request(1.0, 4.0, 7), request(1.0, 5.0, 9), request(3.0, 7.0, 5), request(4.0, 8.0, 9)]
    snaps = [{"timestamp": T0 + t, "metrics": expo(1, [run], [0], [kv], [gen], [10 * t])}
             for t, run, kv, gen in [(0.5, 0, 0.0, 0), (1.5, 2, 0.25, 2), (2.5, 2, 0.5, 6),
                                     (4.5, 2, 0.5, 14), (6.5, 1, 0.25, 22), (8.5, 0, 0.0, 30)]]
    d1 = f"{ROOT}/llm/lm-arena-chat/org/Tiny-1B/H100/num_gpus+1+max_num_seqs+2"
    write(d1, llm("org/Tiny-1B", 1, 2, "inf", p1, r1, (1.0, 7.0, 1500.0, 75.0)),
          {"collection_interval": 1.0, "steady_state_start_time": T0 + 1,
           "steady_state_end_time": T0 + 7, "steady_state_stats": {}, "timeline": snaps})
    # 2. LLM, two GPUs (TP 2), two engines summed, samples not aligned.
    # GPU0: 200 W 0-5 s, 400 W 5-10 s (3000 J); GPU1: 100 W 0-4 s, 300 W 4-10 s
    # (2200 J); together 5200 J.
    p2 = {"device_instant": {"0": [[T0, 200.0], [T0 + 5, 400.0]],
                             "1": [[T0 + 1, 100.0], [T0 + 4, 300.0]]}}
    r2 = [request(1.0, 4.0, 7), request(1.0, 5.0, 9), request(3.0, 7.0, 5), request(4.0, 8.0, 9)]
    snaps2 = [{"timestamp": T0 + t, "metrics": expo(2, [a, b], [1, 0], [0.2, 0.4], [g, g], [5, 5])}
              for t, a, b, g in [(0.5, 1, 1, 0), (2.5, 1, 1, 4), (5.5, 1, 0, 9), (8.5, 0, 0, 15)]]
    d2 = f"{ROOT}/llm/gpqa/org/Mid-8B/H100/num_gpus+2+max_num_seqs+2"
    write(d2, llm("org/Mid-8B", 2, 2, "inf", p2, r2, (1.0, 7.0, 3000.0, 150.0), [3000.0, 2200.0]),
          {"collection_interval": 1.0, "timeline": snaps2})
    # 3. LLM, finite request_rate: no requests/ (arrival unknown), engine rule.
    d3 = f"{ROOT}/llm/lm-arena-chat/org/Tiny-1B/H100/num_gpus+1+max_num_seqs+2+request_rate+4"
    write(d3, llm("org/Tiny-1B", 1, 2, 4.0, p1, r1, (1.0, 7.0, 1500.0, 75.0)),
          {"collection_interval": 1.0, "timeline": snaps})
    # 4. Diffusion: 2 iterations of batch 2 (1.5 s and 2.5 s), power 500 W
    # throughout 0-5 s = 2500 J; harness: total 2500 J / 4 images = 625 J.
    d4 = f"{ROOT}/diffusion/text-to-image/org/Img-2B/H100/batch_size+2"
    write(d4, {"date": "20261123-120000", "model_id": "org/Img-2B", "batch_size": 2,
               "num_iterations": 2, "height": 512, "width": 512, "inference_steps": 20,
               "seed": 1, "total_images": 4, "total_time": 5.0,
               "throughput_images_per_sec": 0.8, "avg_time_per_image": 1.25,
               "total_energy": 2500.0, "energy_per_image": 625.0,
               "energy_measurement": meas(5.0, 2500.0),
               "iteration_energy_measurements": [meas(1.5, 750.0), meas(2.5, 1250.0)],
               "configurations": {"ulysses_degree": 1, "ring_degree": 1, "use_torch_compile": False},
               "timeline": {"benchmark_start_time": T0, "benchmark_end_time": T0 + 5,
                            "power": {"device_instant": {"0": [[T0, 500.0]]}},
                            "temperature": {"0": [[T0, 45.0]]}}})
    # 5. Truncated: results.json cut inside results[1] (the run did not finish
    # writing); imported with the others, reported with its line.
    d5 = f"{ROOT}/llm/lm-arena-chat/org/Tiny-1B/H100/num_gpus+1+max_num_seqs+8"
    write(d5, llm("org/Tiny-1B", 1, 8, "inf", p1, r1, (1.0, 7.0, 1500.0, 75.0)))
    path = os.path.join(d5, "results.json")
    text = open(path).read()
    cut = text.index('"results"')
    cut = text.index('"ttft"', cut + 400)
    open(path, "w").write(text[:cut])


if __name__ == "__main__":
    main()
