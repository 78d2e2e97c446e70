printf 'changed' > store/default/k1
