
C
webdefaultZ

appwebB€âÏªj

ReplicaSetrs"u1*apps/v10H!
appnginxB
cpu
100m2P:	
zonea²
kExistsÈûÿÿÿÿÿÿÿÿ(
Pending
PodScheduledFalse"âÏª