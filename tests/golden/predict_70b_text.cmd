predict --model llama2-70b --gpus 64 --tp 8 --pp 2 --gbs 64 --recompute selective
