# collectives_scaling.gp: busbw at a fixed 64 MiB (nccl-tests size) on dgx-h100
# from 1 to 256 nodes, as the study's Figure 2. Data: collectives_scaling.csv,
# made by (see docs/collectives.md):
#   plateau collectives --cluster dgx-h100 --op all_gather,all_reduce --nodes 1..256 --bytes 64M --format csv
#   (plus --algo tree and --algo ring runs of all_reduce, op renamed)
# Render: gnuplot docs/figures/collectives_scaling.gp (run from the repository root)
set terminal pngcairo size 900,560 font "sans,11"
set output "docs/figures/collectives_scaling.png"
set datafile separator ","
set logscale x 2
set xlabel "nodes (8 H100 each)"
set ylabel "busbw (GB/s = 1e9 B/s)"
set title "Modelled NCCL busbw at 64 MiB on dgx-h100 (plateau collectives)"
set key top right
set key autotitle columnhead
set key noautotitle
set grid
set yrange [0:*]
plot "docs/figures/collectives_scaling.csv" using (strcol(1) eq "all_gather" ? $3 : 1/0):7 with linespoints lw 2 title "all\\_gather (ring)", \
     "" using (strcol(1) eq "all_reduce" ? $3 : 1/0):7 with linespoints lw 2 title "all\\_reduce (auto: NVLS, NVLS\\_TREE)", \
     "" using (strcol(1) eq "all_reduce_tree" ? $3 : 1/0):7 with linespoints lw 2 title "all\\_reduce, tree forced", \
     "" using (strcol(1) eq "all_reduce_ring" ? $3 : 1/0):7 with linespoints dt 2 lw 2 title "all\\_reduce, ring forced"
