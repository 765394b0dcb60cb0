# Generates a suite file just over the 4 MiB limit (kept out of the tree).
print('version: "1"\nname: t\n# ' + 'x' * (4 * 1024 * 1024) + '\nbenchmarks: []')
