Available samples
31 cpu-clock
31 task-clock




















ESC: exit, ENTER|->: Browse histograms
