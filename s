Samples: 342 of event 'cpu-clock', 1000 Hz, lost: 0, 95 samples/s, target: pid 9736; refresh 1.0s, lperf top itself: 0.1
  Overhead  Shared Object         Symbol
     61.29%  tui_work              [.] hot_beta
     37.38%  tui_work              [.] hot_alpha
      0.59%  [kernel.kallsyms]     [k] _raw_spin_unlock_irqrestore
      0.59%  tui_work              [.] main
      0.15%  [kernel.kallsyms]     [k] finish_task_switch.isra.0
















sort: as given   h/?: help  q: quit
