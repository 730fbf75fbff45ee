collectives --cluster dgx-h100 --op all_gather --nodes 1,4,32 --bytes 1M,64M,1G
