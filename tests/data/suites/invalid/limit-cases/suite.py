"""Eleven benchmarks of 1000 cases each: more than the 10000 cases a suite
file may expand to (docs/configuration.md, "Limits")."""
print('version: "1"\nname: big\nbenchmarks:')
for i in range(11):
    a = ", ".join(str(x) for x in range(10))
    b = ", ".join(str(x) for x in range(100))
    print(f'  - name: b{i}\n    parameters: {{a: [{a}], b: [{b}]}}\n'
          f'    commands:\n      c: {{command: [x, "${{a}}", "${{b}}"]}}')
