predict --model llama2-13b --gpus 16 --tp 2 --recompute full --ops
