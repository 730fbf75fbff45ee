# weak-scaling figure written by `plateau validate --scaling --plot` (docs/accuracy.md)
$s0 << EOD
# measured_loss_pct predicted_loss_pct base_gpus gpus
3.37165 1.7678 280 2240
EOD
$s1 << EOD
# measured_loss_pct predicted_loss_pct base_gpus gpus
2.15182 0.0724101 128 256
4.85719 0.221702 128 512
2.30203 0.0933859 128 256
3.78325 0.291622 128 512
1.79266 0.0833407 128 256
2.5084 0.288587 128 512
1.5763 -1.59284 8 128
4.92034 -1.11585 8 256
9.1341 -0.0540604 8 512
2.77693 0.603858 128 256
7.50621 1.86756 128 512
3.55446 0.651082 128 256
9.71392 1.97698 128 512
0.511269 -2.99147 8 16
-0.401711 -4.47868 8 32
-0.169879 -4.88845 8 64
2.15413 0.221661 32 64
1.96913 -0.0775985 16 32
3.55113 -0.0219559 16 64
0.84549 -0.0296094 16 32
0.203196 -0.00920275 64 128
1.58974 -0.0464869 32 64
2.73884 -0.0492642 32 128
1.78954 -0.120635 32 64
3.7949 0.0152272 32 128
-22.1523 -0.0285046 32 64
-19.8766 0.140919 32 128
-0.137105 -0.141657 16 32
0.889866 -0.103834 16 64
2.25348 0.141828 16 128
2.89109 -0.0321267 16 32
4.9167 0.066598 16 64
6.27845 0.36462 16 128
2.61419 0.0110984 16 32
4.06057 0.122404 16 64
5.05518 0.409125 16 128
EOD
$s2 << EOD
# measured_loss_pct predicted_loss_pct base_gpus gpus
6.67823 9.40733 1 128
6.81199 7.51858 2 256
6.44122 11.6016 4 512
2.68116 19.3581 8 1024
EOD
set xrange [-23.15:20.36]
set yrange [-23.15:20.36]
set size ratio -1
set grid
set key bottom right box opaque
set xlabel "per-GPU throughput lost, measured (%)"
set ylabel "per-GPU throughput lost, predicted (%)"
set title "plateau: weak scaling, 41 pairs (same work per GPU; mean |gap| 4.4 pp)"
set terminal svg size 900,820 noenhanced font "sans,12" background rgb "white"
set output "scaling.svg"
plot x title "predicted = measured" lc rgb "black" lw 1.5, \
     $s0 using 1:2 with points pt 7 ps 1.1 title "korthikanti2022_activation_recompute (1 pair)", \
     $s1 using 1:2 with points pt 5 ps 1.1 title "llmfoundry_mpt_benchmarks (36 pairs)", \
     $s2 using 1:2 with points pt 9 ps 1.1 title "megatron_lm_readme_2020 (4 pairs)"
set terminal pngcairo size 900,820 noenhanced font "sans,11"
set output "scaling.png"
plot x title "predicted = measured" lc rgb "black" lw 1.5, \
     $s0 using 1:2 with points pt 7 ps 1.1 title "korthikanti2022_activation_recompute (1 pair)", \
     $s1 using 1:2 with points pt 5 ps 1.1 title "llmfoundry_mpt_benchmarks (36 pairs)", \
     $s2 using 1:2 with points pt 9 ps 1.1 title "megatron_lm_readme_2020 (4 pairs)"
unset output
