[daemon]
base = /work/wt/h5-pprof/base

[session-web]
run = 
