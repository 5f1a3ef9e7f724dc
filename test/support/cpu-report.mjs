// Loaded with --import into every test file's process when run-tests.mjs is given --times: at exit it appends
// the file's wall time since its process started and its CPU time (its own and that of the child processes it reaped: servers, CLIs, builds) to the JSON-lines
// file named by PARLANCE_TEST_CPU. Linux only (/proc/self/stat); elsewhere it records nothing.
import { appendFileSync, readFileSync } from 'node:fs'
import { relative } from 'node:path'

const out = process.env.PARLANCE_TEST_CPU
const file = process.argv[1]
if (out && file && /\.test\.[cm]?[jt]s$/.test(file)) {
  process.on('exit', () => {
    try {
      // Fields after the ")" that ends the command name: utime is the 14th field of the line, then stime, cutime, cstime.
      const stat = readFileSync('/proc/self/stat', 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const [utime, stime, cutime, cstime] = [f[11], f[12], f[13], f[14]].map((n) => Number(n) / 100)
      appendFileSync(
        out,
        JSON.stringify({
          file: relative(process.cwd(), file),
          wall: +process.uptime().toFixed(2),
          self: +(utime + stime).toFixed(2),
          children: +(cutime + cstime).toFixed(2),
        }) + '\n',
      )
    } catch {
      // No /proc: no CPU figure for this file.
    }
  })
}
