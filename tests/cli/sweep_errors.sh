#!/usr/bin/env bash
# Bad input to `plateau sweep` gets one line naming the problem and a
# non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"

expect_fail 1 "--gpus: 'x' is not a positive integer" -- sweep --gpus 8,x
expect_fail 1 "--gpus: range '64..8' runs backwards" -- sweep --gpus 64..8
expect_fail 1 "--gpus: empty item" -- sweep --gpus 8,,16
expect_fail 1 "--gpus: '...' needs two values before it" -- sweep --gpus 8,...,64
expect_fail 1 "--gpus: '...' needs a value after it" -- sweep --gpus 8,16,...
expect_fail 1 "--gpus: '...' needs increasing values" -- sweep --gpus 16,8,...,64
expect_fail 1 "--gpus: more than 4096 points" -- sweep --gpus 2,3,...,5000
expect_fail 1 "give --gpus or --nodes, not both" -- sweep --gpus 8 --nodes 1
expect_fail 1 "--layout: unknown value 'worst'" -- sweep --gpus 8 --layout worst
expect_fail 1 "give --layout or --strategies, not both" -- sweep --gpus 8 --layout best --strategies fsdp
expect_fail 1 "--strategies: unknown strategy 'tp'" -- sweep --gpus 8 --strategies fsdp,tp
expect_fail 1 "--knee: 1.5 is outside" -- sweep --gpus 8 --knee 1.5
expect_fail 1 "--objective cost needs --gpu-hour-price" -- sweep --gpus 8 --layout best --objective cost
expect_fail 1 "sweep point llama2-7b, 12 GPUs: .*not divisible" -- sweep --gpus 8,12 --tp 8
expect_fail 1 "--model: empty item" -- sweep --gpus 8 --model llama2-7b,
expect_fail 1 "llama9" -- sweep --gpus 8 --model llama2-7b,llama9
expect_fail 2 "unknown option '--bogus'" -- sweep --bogus
finish
