collectives --cluster dgx-a100 --op all_reduce --nodes 2,16 --bytes 8M,512M --format json
