predict --model llama2-13b --gpus 16 --shard zero3 --format csv
