//! The README's launch examples, run as written on one machine: the ssh loop over a hosts
//! file (with an `ssh` that runs the command here), the Slurm batch script (with
//! an `srun` that starts its command once per task with `SLURM_PROCID`, `SLURM_NTASKS` and
//! `SLURM_CPUS_PER_TASK` set, and an `scontrol` that names the nodes) and the Kubernetes
//! indexed Job's command (once per completion index, with the pods' host names
//! `fimdup-<index>.fimdup`). Each runs in its own network, mount and user namespace
//! (`unshare -Urnm`), where the nodes are the loopback addresses 127.0.0.1, 127.0.0.2, ...
//! (named in a private `/etc/hosts`) and the port the examples use, 7700, is free; only the
//! data paths (`/shared`, `/data`, and each pod's own `/tmp`) are replaced by the test's
//! directories. The output must be
//! the bytes of the one-process command's.
//!
//! Where namespaces cannot be made (no `unshare`, or no permission), the tests say so and
//! pass, except under CI (`CI` set), where they fail.

use crate::common::{ok, s};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The first code block of `lang` after the line holding `anchor` in the README.
fn readme_block(anchor: &str, lang: &str) -> String {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let at = readme
        .find(anchor)
        .unwrap_or_else(|| panic!("README has no {anchor:?}"));
    let open = format!("```{lang}\n");
    let start = at + readme[at..].find(&open).unwrap() + open.len();
    let end = start + readme[start..].find("```").unwrap();
    readme[start..end].to_string()
}

/// Whether this machine lets the test make the namespaces it runs the examples in; when it
/// does not, says so (and fails under CI).
fn namespaces() -> bool {
    let ok = Command::new("unshare")
        .args([
            "-Urnm",
            "sh",
            "-c",
            "ip link set lo up && mount --bind /dev/null /dev/null",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: unshare -Urnm (user, network and mount namespaces) is needed to run the launch examples"
        );
        eprintln!("launch: no user/network/mount namespaces here (unshare -Urnm): the examples are not run");
    }
    ok
}

/// Runs the bash `script` in new namespaces, with loopback up, `hosts` as `/etc/hosts`, the
/// binary under test first on the path (beside the stubs written into `bin`), in `cwd`.
fn run_isolated(script: &str, hosts: &str, bin: &Path, cwd: &Path, env: &[(&str, &str)]) {
    fs::create_dir_all(bin).unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_fimdup"));
    let link = bin.join("fimdup");
    if !link.exists() {
        std::os::unix::fs::symlink(exe, &link).unwrap();
    }
    let hosts_file = cwd.join("etc-hosts");
    fs::write(&hosts_file, hosts).unwrap();
    let body = cwd.join("example.sh");
    fs::write(&body, script).unwrap();
    let setup = format!(
        "ip link set lo up && mount --bind {} /etc/hosts && exec bash {}",
        s(&hosts_file),
        s(&body)
    );
    let path = format!("{}:{}", s(bin), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("unshare")
        .args(["-Urnm", "bash", "-c", &setup])
        .current_dir(cwd)
        .env("PATH", path)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the example failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A generated corpus of 2,000 documents (`seed`) as `dir/sub/corpus.jsonl`, where the
/// examples read it, and its one-process outputs (`cluster --threshold 0.8`, as the
/// examples run): (the outputs' directory, `dir/sub`).
fn corpus_in(dir: &Path, sub: &str, seed: u64) -> (PathBuf, PathBuf) {
    let corpus = crate::common::gen(dir, "corpus", 2000, seed, "", &[]);
    let want = dir.join("single");
    ok(&[
        "cluster",
        s(&corpus),
        "--threshold",
        "0.8",
        "--out",
        s(&want),
    ]);
    let at = dir.join(sub);
    fs::create_dir_all(&at).unwrap();
    fs::copy(&corpus, at.join("corpus.jsonl")).unwrap();
    (want, at)
}

/// `clusters.jsonl` and `pairs.csv` of `got` are those of `want`: the parts the processes
/// wrote into the shared `got` (`clusters.part-00000.jsonl`, ...), concatenated in process
/// order as the README says.
fn assert_same_output(want: &Path, got: &Path, what: &str) {
    let mut names: Vec<String> = fs::read_dir(got)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for (f, stem, ext) in [
        ("clusters.jsonl", "clusters", "jsonl"),
        ("pairs.csv", "pairs", "csv"),
    ] {
        let parts: Vec<&String> = (names.iter())
            .filter(|n| n.starts_with(&format!("{stem}.part-")) && n.ends_with(&format!(".{ext}")))
            .collect();
        assert!(parts.len() > 1, "{what}: parts of {f}: {names:?}");
        let mut b = Vec::new();
        for p in parts {
            b.extend(fs::read(got.join(p)).unwrap());
        }
        let a = fs::read(want.join(f)).unwrap();
        assert!(!a.is_empty(), "{what}: empty {f}");
        assert!(a == b, "{what}: {f} differs from the one-process run's");
    }
}

#[test]
fn the_slurm_example_runs_as_written() {
    if !namespaces() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (want, shared) = corpus_in(d, "shared", 5);
    let script =
        readme_block("On a Slurm cluster", "sh").replace("/shared/", &format!("{}/", s(&shared)));
    let tasks = 3;
    let bin = d.join("bin");
    fs::create_dir_all(&bin).unwrap();
    // The nodes, one per task; srun starts the command once per task, each with its own
    // SLURM_PROCID, and fails when one of them fails.
    let nodes: String = (1..=tasks).map(|i| format!("echo 127.0.0.{i}\n")).collect();
    fs::write(
        bin.join("scontrol"),
        format!("#!/bin/sh\n[ \"$1 $2\" = \"show hostnames\" ] || exit 9\n{nodes}"),
    )
    .unwrap();
    fs::write(
        bin.join("srun"),
        "#!/bin/bash\npids=()\nfor ((i = 0; i < SLURM_NTASKS; i++)); do\n  SLURM_PROCID=$i \"$@\" &\n  pids+=($!)\ndone\nrc=0\nfor p in \"${pids[@]}\"; do wait $p || rc=$?; done\nexit $rc\n",
    )
    .unwrap();
    for f in ["scontrol", "srun"] {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(bin.join(f), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let ntasks = tasks.to_string();
    run_isolated(
        &script,
        "127.0.0.1 localhost\n",
        &bin,
        d,
        &[
            ("SLURM_JOB_NODELIST", "node[1-3]"),
            ("SLURM_JOB_ID", "42"),
            ("SLURM_NTASKS", &ntasks),
            ("SLURM_CPUS_PER_TASK", "1"),
        ],
    );
    assert_same_output(&want, &shared.join("out"), "the Slurm example");
}

#[test]
fn the_kubernetes_example_runs_as_written() {
    if !namespaces() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (want, data) = corpus_in(d, "data", 6);
    let yaml = readme_block("On Kubernetes, an indexed Job", "yaml");
    // The container's command: the third string of `command: ["sh", "-c", "..."]`.
    let at =
        yaml.find("command: [\"sh\", \"-c\", \"").unwrap() + "command: [\"sh\", \"-c\", \"".len();
    let end = at + yaml[at..].find("\"]").unwrap();
    let command = yaml[at..end].replace('\n', " ");
    let completions: usize = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // One pod per completion index, each with its own /tmp (the hosts file it writes).
    let mut script = String::from("pids=()\n");
    for i in 0..completions {
        let tmp = d.join(format!("pod{i}"));
        fs::create_dir_all(&tmp).unwrap();
        // /tmp first: the test's own directories may lie under /tmp.
        let pod = command
            .replace("/tmp/", &format!("{}/", s(&tmp)))
            .replace("/data/", &format!("{}/", s(&data)));
        script += &format!(
            "JOB_COMPLETION_INDEX={i} sh -c {} &\npids+=($!)\n",
            shell_quote(&pod)
        );
    }
    script += "rc=0\nfor p in \"${pids[@]}\"; do wait $p || rc=$?; done\nexit $rc\n";
    let hosts: String = (0..completions)
        .map(|i| format!("127.0.0.{} fimdup-{i}.fimdup\n", i + 1))
        .collect();
    run_isolated(&script, &hosts, &d.join("bin"), d, &[]);
    assert_same_output(&want, &data.join("out"), "the Kubernetes example");
}

/// `s` in single quotes for the shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn the_ssh_example_runs_as_written() {
    if !namespaces() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (want, shared) = corpus_in(d, "shared", 7);
    let hosts: String = (1..=3).map(|i| format!("127.0.0.{i}:7700\n")).collect();
    fs::write(shared.join("hosts.txt"), hosts).unwrap();
    let script = readme_block("On a plain list of hosts", "sh")
        .replace("/shared/", &format!("{}/", s(&shared)));
    // ssh runs its command on the named host: here, on this machine, as the remote shell
    // would (the words joined into one command line).
    let bin = d.join("bin");
    fs::create_dir_all(&bin).unwrap();
    fs::write(
        bin.join("ssh"),
        "#!/bin/bash\n[ \"$1\" = -n ] && shift\ncase \"$1\" in 127.0.0.[1-3]) ;; *) exit 255;; esac\nshift\nexec bash -c \"$*\" </dev/null\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(bin.join("ssh"), fs::Permissions::from_mode(0o755)).unwrap();
    run_isolated(&script, "127.0.0.1 localhost\n", &bin, d, &[]);
    assert_same_output(&want, &shared.join("out"), "the ssh example");
}
