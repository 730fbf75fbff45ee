sweep --model llama2-7b --gpus 8,64 --strategies fsdp,tp2 --format csv
