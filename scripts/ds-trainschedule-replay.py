#!/usr/bin/env python3
# Replay of DeepSpeed's 1F1B pipeline schedule with blocking transfers (analysis aid, no model input).
#
# Source: microsoft/DeepSpeed v0.7.0 deepspeed/runtime/pipe/schedule.py TrainSchedule.steps and
# _step_to_micro_batch (transcribed below; identical in v0.5.x-v0.9.x), run as
# deepspeed/runtime/pipe/engine.py _exec_schedule does: each stage executes its instructions in
# order (before v0.8.3: RecvActivation then SendGrad before a forward, SendActivation then RecvGrad
# before a backward; from v0.8.3 each pair the other way round); RecvActivation/SendActivation and SendGrad/RecvGrad are p2p.send/p2p.recv
# (torch.distributed.send/recv for torch >= 1.8, p2p.py can_send_recv), so a transfer starts when
# both stages have reached it and both continue when it ends (c seconds); ForwardPass costs f and
# BackwardPass b. Prints the step time against (m + p - 1)(f + b), the ideal 1F1B step.
#
# Usage: scripts/ds-trainschedule-replay.py [p m f b c ...]   (default: the MT-NLG / BLOOM shapes)
import sys


def stage_program(stages, m, s, v083=False):
    def valid(mb):
        return 0 <= mb < m

    def step_to_mb(t):
        if t % 2 == 0 and s % 2 == 0:
            return t // 2 - s // 2, True
        if t % 2 == 1 and s % 2 == 1:
            return (t - 1) // 2 - s // 2, True
        if t % 2 == 0 and s % 2 == 1:
            return t // 2 - stages + (s + 1) // 2, False
        return (t - 1) // 2 - stages + 1 + s // 2, False

    prev, out = -1, []
    for t in range(2 * (m + stages - 1)):
        mb, fwd = step_to_mb(t)
        ex = []
        if fwd:
            if valid(mb) and s > 0:
                ex.append(("recvact", s - 1))
            if valid(prev) and s > 0:
                ex.append(("sendgrad", s - 1))
        else:
            if valid(prev) and s < stages - 1:
                ex.append(("sendact", s + 1))
            if valid(mb) and s < stages - 1:
                ex.append(("recvgrad", s + 1))
        # v0.8.3 (commit b528f50e, PR #2862, 2023-03-13) swapped each step's pair:
        # SendGrad before RecvActivation, RecvGrad before SendActivation
        out += ex[::-1] if v083 else ex
        if valid(mb):
            out.append(("F" if fwd else "B", None))
        prev = mb
    return out


def replay(p, m, f, b, c, v083=False):
    prog = [stage_program(p, m, s, v083) for s in range(p)]
    pc, tm = [0] * p, [0.0] * p
    match = {"sendact": "recvact", "recvact": "sendact", "sendgrad": "recvgrad", "recvgrad": "sendgrad"}
    while not all(pc[s] == len(prog[s]) for s in range(p)):
        moved = False
        for s in range(p):
            while pc[s] < len(prog[s]):
                op, peer = prog[s][pc[s]]
                if op in ("F", "B"):
                    tm[s] += f if op == "F" else b
                    pc[s] += 1
                    moved = True
                    continue
                if pc[peer] < len(prog[peer]) and prog[peer][pc[peer]] == (match[op], s):
                    tm[s] = tm[peer] = max(tm[s], tm[peer]) + c
                    pc[s] += 1
                    pc[peer] += 1
                    moved = True
                    continue
                break
        if not moved:
            sys.exit("deadlock")
    return max(tm)


def main():
    a = [float(x) for x in sys.argv[1:]]
    cases = [a[i:i + 5] for i in range(0, len(a), 5)] if a else [
        [35, 240, 1, 3, 0], [35, 240, 1, 3, 0.05], [35, 160, 1, 3, 0.05],
        [12, 128, 1, 3, 0], [12, 128, 1, 3, 0.05], [12, 1, 1, 3, 0.05]]
    print("p m f b c | step v0.5-v0.8.2, v0.8.3+ | ideal (m+p-1)(f+b) | transfer times per slot (old, new)")
    for p, m, f, b, c in cases:
        p, m = int(p), int(m)
        old, new = replay(p, m, f, b, c), replay(p, m, f, b, c, True)
        ideal = (m + p - 1) * (f + b)
        per = [(x - ideal) / c / (m + p - 1) if c > 0 else 0 for x in (old, new)]
        print(p, m, f, b, c, "|", round(old, 3), round(new, 3), "|", round(ideal, 3), "|",
              round(per[0], 2), round(per[1], 2))


if __name__ == "__main__":
    main()
