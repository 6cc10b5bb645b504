

cdefault)
'

a
gpu 
a

drv	
{"a":1}