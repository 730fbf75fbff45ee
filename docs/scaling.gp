# weak-scaling figure written by `plateau validate --scaling --plot` (docs/accuracy.md)
$s0 << EOD
# measured_loss_pct predicted_loss_pct base_gpus gpus
3.37165 1.76932 280 2240
EOD
$s1 << EOD
# measured_loss_pct predicted_loss_pct base_gpus gpus
2.15182 0.1074 128 256
4.85719 0.274506 128 512
2.30203 0.12802 128 256
3.78325 0.344155 128 512
1.79266 0.100537 128 256
2.5084 0.31551 128 512
1.5763 -0.045678 8 128
4.92034 0.482317 8 256
9.1341 1.56633 8 512
2.77693 0.652109 128 256
7.50621 1.96042 128 512
3.55446 0.696952 128 256
9.71392 2.08079 128 512
0.511269 -0.798729 8 16
-0.401711 -1.12726 8 32
-0.169879 -0.950819 8 64
2.15413 0.285634 32 64
1.96913 0.02701 16 32
3.55113 0.138397 16 64
0.84549 0.0445512 16 32
0.203196 0.0201903 64 128
1.58974 0.00411078 32 64
2.73884 0.0268288 32 128
1.78954 0.0475691 32 64
3.7949 0.271401 32 128
-22.1523 0.0680231 32 64
-19.8766 0.291663 32 128
-0.137105 -0.000359523 16 32
0.889866 0.113463 16 64
2.25348 0.407653 16 128
2.89109 0.0433098 16 32
4.9167 0.188416 16 64
6.27845 0.528129 16 128
2.61419 0.0581818 16 32
4.06057 0.210217 16 64
5.05518 0.554585 16 128
EOD
$s2 << EOD
# measured_loss_pct predicted_loss_pct base_gpus gpus
6.67823 9.46825 1 128
6.81199 7.55776 2 256
6.44122 11.6424 4 512
2.68116 19.3994 8 1024
EOD
set xrange [-23.15:20.4]
set yrange [-23.15:20.4]
set size ratio -1
set grid
set key bottom right box opaque
set xlabel "per-GPU throughput lost, measured (%)"
set ylabel "per-GPU throughput lost, predicted (%)"
set title "plateau: weak scaling, 41 pairs (same work per GPU; mean |gap| 4.0 pp)"
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
