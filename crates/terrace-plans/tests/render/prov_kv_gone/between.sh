rm store/default/k1
