/*
Interpretando Resultados:

MAX_IOPS   MAX_MBPS  MAX_PMBPS    LATENCY NUM_PHYSICAL_DISKS
-------- ---------- ---------- ---------- ------------------
     428        176         77          8                  4
     524        173         76         21                  4
     537        183         74         28                  4
     598        174         78         38                  4

*/
