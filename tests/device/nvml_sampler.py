#!/usr/bin/env python3
"""Poll NVML in a process of its own, so that no Python program beside it
(a profiler stopping, a JSON export holding the GIL) can stall the polls.

    nvml_sampler.py OUT.csv PERIOD_S [--index N] [--fake]

Every PERIOD_S seconds: the total energy counter (mJ), the instant power
field (NVML_FI_DEV_POWER_INSTANT, mW), the 1-s average field
(NVML_FI_DEV_POWER_AVERAGE, mW) and the plain reading
(nvmlDeviceGetPowerUsage, mW), and beside them the SM and memory clocks
(nvmlDeviceGetClockInfo, MHz), the clock-event (throttle) reasons bitmask
(nvmlDeviceGetCurrentClocksEventReasons, or ...ThrottleReasons on older
drivers: 0x4 software power cap, 0x8 hardware slowdown, 0x20/0x40 thermal,
0x80 power brake) and the GPU temperature (C), through ctypes on
libnvidia-ml.so.1 (no pynvml needed). A column NVML refuses is written empty. Each row is stamped with time.perf_counter()
(CLOCK_MONOTONIC: the same clock in every process of the machine) at the
middle of its NVML calls. Rows are appended to OUT.csv and flushed every
second; the sampler stops when its standard input closes or on SIGTERM.
--fake polls nothing (zeros): a test of the loop on a machine without a
GPU. Standard library only.
"""
import ctypes
import signal
import sys
import threading
import time


class _FieldValue(ctypes.Structure):
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint),
                ("timestamp", ctypes.c_longlong), ("latencyUsec", ctypes.c_longlong),
                ("valueType", ctypes.c_uint), ("nvmlReturn", ctypes.c_uint),
                ("value", ctypes.c_ulonglong)]  # union of 8 bytes, decoded below


NVML_FI_DEV_POWER_AVERAGE = 185
NVML_FI_DEV_POWER_INSTANT = 186


class Nvml:
    def __init__(self, index=0):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        self._ok(self.lib.nvmlInit_v2(), "nvmlInit_v2")
        self.dev = ctypes.c_void_p()
        self._ok(self.lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(self.dev)),
                 "nvmlDeviceGetHandleByIndex_v2")
        self.fields = (_FieldValue * 2)()
        name = ctypes.create_string_buffer(96)
        self.lib.nvmlDeviceGetName(self.dev, name, 96)
        self.name = name.value.decode()
        drv = ctypes.create_string_buffer(96)
        self.lib.nvmlSystemGetDriverVersion(drv, 96)
        self.driver = drv.value.decode()
        lim = ctypes.c_uint()
        self.power_limit_w = (lim.value / 1000.0 if self.lib.nvmlDeviceGetEnforcedPowerLimit(
            self.dev, ctypes.byref(lim)) == 0 else float("nan"))
        self._reasons = None
        for fn in ("nvmlDeviceGetCurrentClocksEventReasons",
                   "nvmlDeviceGetCurrentClocksThrottleReasons"):
            try:
                self._reasons = getattr(self.lib, fn)
                break
            except AttributeError:
                continue

    @staticmethod
    def _ok(rc, what):
        if rc != 0:
            raise RuntimeError(f"NVML {what} failed with code {rc}")

    @staticmethod
    def _value(f):
        if f.nvmlReturn != 0:
            return float("nan")
        raw = f.value
        t = f.valueType
        if t == 0:  # double
            return ctypes.cast(ctypes.pointer(ctypes.c_ulonglong(raw)),
                               ctypes.POINTER(ctypes.c_double)).contents.value
        if t in (1, 5, 6):  # uint, sint, ushort: low 32 bits
            return float(raw & 0xFFFFFFFF)
        return float(raw)

    def poll(self):
        """(energy mJ, instant mW, average mW, plain reading mW)."""
        e = ctypes.c_ulonglong()
        rc = self.lib.nvmlDeviceGetTotalEnergyConsumption(self.dev, ctypes.byref(e))
        energy = float(e.value) if rc == 0 else float("nan")
        self.fields[0].fieldId = NVML_FI_DEV_POWER_INSTANT
        self.fields[1].fieldId = NVML_FI_DEV_POWER_AVERAGE
        self.fields[0].scopeId = self.fields[1].scopeId = 0
        rc = self.lib.nvmlDeviceGetFieldValues(self.dev, 2, self.fields)
        inst = self._value(self.fields[0]) if rc == 0 else float("nan")
        avg = self._value(self.fields[1]) if rc == 0 else float("nan")
        p = ctypes.c_uint()
        rc = self.lib.nvmlDeviceGetPowerUsage(self.dev, ctypes.byref(p))
        usage = float(p.value) if rc == 0 else float("nan")
        return energy, inst, avg, usage

    def poll_clocks(self):
        """(SM clock MHz, memory clock MHz, clock-event reasons bitmask, temperature C);
        None where NVML refuses."""
        u = ctypes.c_uint()
        sm = u.value if self.lib.nvmlDeviceGetClockInfo(self.dev, 1, ctypes.byref(u)) == 0 \
            else None
        mem = u.value if self.lib.nvmlDeviceGetClockInfo(self.dev, 2, ctypes.byref(u)) == 0 \
            else None
        r = ctypes.c_ulonglong()
        reasons = r.value if self._reasons is not None and \
            self._reasons(self.dev, ctypes.byref(r)) == 0 else None
        temp = u.value if self.lib.nvmlDeviceGetTemperature(self.dev, 0, ctypes.byref(u)) == 0 \
            else None
        return sm, mem, reasons, temp


def _cell(v):
    return "" if v is None else "%d" % v


def main():
    args = sys.argv[1:]
    fake = "--fake" in args
    index = int(args[args.index("--index") + 1]) if "--index" in args else 0
    pos = [a for i, a in enumerate(args) if not a.startswith("--") and
           (i == 0 or args[i - 1] != "--index")]
    if len(pos) != 2:
        print("usage: nvml_sampler.py OUT.csv PERIOD_S [--index N] [--fake]", file=sys.stderr)
        return 2
    out, period = pos[0], float(pos[1])
    if fake:
        def poll():
            return 0.0, 0.0, 0.0, 0.0, None, None, None, None
    else:
        nv = Nvml(index)

        def poll():
            return nv.poll() + nv.poll_clocks()
    stop = threading.Event()

    def wait_stdin():
        sys.stdin.read()
        stop.set()

    threading.Thread(target=wait_stdin, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with open(out, "w") as f:
        f.write("t_perf_s,energy_mj,instant_mw,average_mw,usage_mw,sm_mhz,mem_mhz,reasons,temp_c\n")
        nxt = last_flush = time.perf_counter()
        while not stop.is_set():
            a = time.perf_counter()
            e, i, v, u, sm, mem, why, temp = poll()
            b = time.perf_counter()
            f.write("%.6f,%.0f,%.0f,%.0f,%.0f,%s,%s,%s,%s\n" % (
                0.5 * (a + b), e, i, v, u, _cell(sm), _cell(mem), _cell(why), _cell(temp)))
            if b - last_flush >= 1.0:
                f.flush()
                last_flush = b
            nxt += period
            d = nxt - time.perf_counter()
            if d > 0:
                stop.wait(d)
            else:
                nxt = time.perf_counter()
    return 0


if __name__ == "__main__":
    sys.exit(main())
