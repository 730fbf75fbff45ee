predict --model llama3-405b --gpus 8
