# Generates a suite with 1100 unknown keys: the first 1000 problems are listed.
print('version: "1"\nname: t\n' + ''.join('k%d: 1\n' % i for i in range(1100)) + 'benchmarks: []')
