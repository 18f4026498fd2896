UCLA pl 1.0

a0	10	0	: N
a1	20.5	10	: FS
a2	30	20
a3	40	0	: N
a4	50	10	: N /FIXED
m0	60	-5	: N /FIXED
m1	0	60	/FIXED
p0	-1	15	: E /FIXED_NI
