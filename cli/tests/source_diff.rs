//! Source-level differential tests: each case in `tests/source` (a C program with debug
//! information and a gdb command script) runs under gdb 13 and under `cohort` with the same
//! argv; normalised stdout and stderr must be identical.
//!
//! `SOURCE_DIFF_CANDIDATE=gdb cargo test -p cohort --test source_diff` runs gdb against gdb:
//! that checks a case is deterministic under the oracle.
//!
//! Where gdb 13 is wrong, a script gives the output by hand (`#expect:`, `#expect-stderr:`
//! and `#reason:` lines after the command): the harness marks that command's output in both
//! runs and puts the expectation in place of gdb's (see `tests/source/README.md`).

use std::time::Duration;

use cohort_fixtures::{
    SourceCase, apply_expectations, commands_with_markers, line_diff, run_debugger, source_case,
    source_case_dir, strip_markers,
};

/// A debugger session that runs longer than this is killed (and its output so far compared).
const LIMIT: Duration = Duration::from_secs(300);

/// gdb 13's words when it cannot write the x87/SSE/AVX state of the program.
const GDB_XSTATE_BUG: &str = "Couldn't write extended state status";

fn run(tool: &str, case: &SourceCase, expected: bool) -> (String, String) {
    let mut commands = if expected {
        commands_with_markers(&case.commands, &case.expectations)
    } else {
        case.commands.clone()
    };
    if tool == "gdb" {
        commands.splice(0..0, case.gdb_prelude.iter().cloned());
    }
    run_debugger(tool, &case.program, &case.args, &commands, &[], LIMIT)
}

fn check(name: &str) {
    let case = source_case(name);
    let candidate = std::env::var("SOURCE_DIFF_CANDIDATE")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_cohort").into());
    // Hand-written expectations replace gdb's output where it is wrong (not when gdb runs
    // against itself).
    let expected = !case.expectations.is_empty() && candidate != "gdb";
    let mut g = run("gdb", &case, expected);
    let mut c = run(&candidate, &case, expected);
    if expected {
        if g.1.contains(GDB_XSTATE_BUG) {
            panic!("case {name}: gdb failed ({GDB_XSTATE_BUG}); expectations need its output");
        }
        g = apply_expectations(&g.0, &g.1, &case.expectations)
            .unwrap_or_else(|e| panic!("case {name}: {e}"));
        g = (
            strip_markers(&g.0, &case.expectations),
            strip_markers(&g.1, &case.expectations),
        );
        c = (
            strip_markers(&c.0, &case.expectations),
            strip_markers(&c.1, &case.expectations),
        );
    }
    if std::env::var_os("SOURCE_DIFF_RECORD").is_some() {
        // Records the candidate's output as the oracle's, for the cases below.
        let dir = source_case_dir();
        std::fs::write(dir.join(format!("{name}.gdb-stdout")), &c.0).unwrap();
        std::fs::write(dir.join(format!("{name}.gdb-stderr")), &c.1).unwrap();
    }
    if g.1.contains(GDB_XSTATE_BUG) {
        // gdb 13 cannot write vector registers on CPUs whose XSAVE area is larger than it
        // expects (AVX-512 and AMX): it stops the script there. The oracle is then gdb's output
        // recorded on a machine where it can.
        let dir = source_case_dir();
        match (
            std::fs::read_to_string(dir.join(format!("{name}.gdb-stdout"))),
            std::fs::read_to_string(dir.join(format!("{name}.gdb-stderr"))),
        ) {
            (Ok(o), Ok(e)) => g = (o, e),
            _ => panic!("case {name}: gdb failed ({GDB_XSTATE_BUG}) and has no recorded output"),
        }
        // Stack addresses depend on the environment the program was started with, which is
        // not the recording's.
        let stack = |t: &str| {
            let mut out = String::with_capacity(t.len());
            let mut rest = t;
            while let Some(i) = rest.find("0x7fff") {
                out.push_str(&rest[..i]);
                let tail = &rest[i + 2..];
                let n = tail.bytes().take_while(u8::is_ascii_hexdigit).count();
                out.push_str(if n == 12 {
                    "0x<stack>"
                } else {
                    &rest[i..i + 2 + n]
                });
                rest = &tail[n..];
            }
            out.push_str(rest);
            out
        };
        g = (stack(&g.0), stack(&g.1));
        c = (stack(&c.0), stack(&c.1));
    }
    let mut report = String::new();
    if c.0 != g.0 {
        report.push_str(&format!(
            "stdout differs from gdb (- gdb, + {candidate}):\n{}",
            line_diff(&g.0, &c.0)
        ));
    }
    if c.1 != g.1 {
        report.push_str(&format!(
            "stderr differs from gdb (- gdb, + {candidate}):\n{}",
            line_diff(&g.1, &c.1)
        ));
    }
    assert!(
        report.is_empty(),
        "case {name} ({} {}):\n{report}",
        case.program.display(),
        case.args.join(" ")
    );
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        const CASES: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

cases! {
    apropos,
    assign,
    backtrace,
    bad_input,
    brace_exprs,
    break_bpnum,
    break_cond,
    break_extras,
    delete_args,
    break_func,
    break_label,
    call_stop,
    call_stop_displays,
    call_stop_cond,
    call_stop_ignore,
    call_stop_step,
    call_thread_signal,
    call_threads,
    call_watch,
    calls,
    catch_events,
    catch_exec,
    catch_syscall,
    catch_syscall_group,
    catch_syscall_start,
    catch_syscall_threads,
    complete,
    convenience_funcs,
    caller_funcs,
    registers_vector,
    registers_flags,
    registers_ymm,
    disassemble_range,
    display_scope_backtrace,
    tail_linkage,
    cxx_frame_names,
    cxx_using,
    cxx_mesh,
    cxx_mesh_o2,
    cxx_mesh_clang,
    cxx_pool,
    cxx_pool_o2,
    cxx_libcxx,
    cxx_member_ptr,
    cxx_iterators,
    cxx_iterators_clang,
    cxx_iterators_o2,
    cxx_iterators_clang_o2,
    libc_alias_names,
    cxx_lambda_frames,
    cxx_caller_funcs,
    cxx_call_stop,
    cxx_call_terminate,
    cxx_call_terminate_clang,
    cxx_calls,
    cxx_calls_clang,
    cxx_calls_clang_o2,
    cxx_calls_o2,
    cxx_catch,
    cxx_catch_clang,
    cxx_catch_clang_o2,
    cxx_catch_o2,
    cxx_class,
    cxx_class_clang,
    cxx_class_o2,
    cxx_gaps,
    cxx_gaps_clang,
    cxx_inherit,
    cxx_inherit_clang,
    cxx_inherit_o2,
    cxx_lambda,
    cxx_lambda_clang,
    cxx_names,
    cxx_names_clang,
    cxx_overload,
    cxx_overload_clang,
    cxx_overload_o2,
    cxx_print_object,
    cxx_print_object_clang,
    cxx_refs,
    cxx_refs_clang,
    cxx_refs_o2,
    cxx_smart_ptr,
    cxx_smart_ptr_clang,
    cxx_smart_ptr_o2,
    cxx_stl,
    cxx_stl_clang_o2,
    cxx_stl_o2,
    cxx_stl_hash,
    cxx_stl_more,
    cxx_stl_more_o2,
    cxx_garbage,
    cxx_value_types,
    cxx_addresses,
    cxx_stl_seq,
    cxx_stl_seq_o2,
    cxx_stl_tree,
    cxx_stl_tree_clang,
    cxx_stl_tree_clang_types,
    cxx_stl_tree_clang_o2,
    cxx_thread_call,
    cxx_unary_ops,
    cxx_unary_ops_o2,
    cxx_template_names,
    cxx_template_names_clang,
    cxx_typedef_base,
    cxx_typedef_base_clang,
    cxx_rtti_warning,
    cxx_opaque,
    cxx_opaque_clang,
    cxx_symbols,
    cxx_symbols_clang,
    cxx_whatis,
    cxx_whatis_o2,
    disassemble_x,
    dlclose_reuse,
    dlopen,
    examine_history,
    exec_follow,
    expressions,
    finish_values,
    fork_next,
    frame_apply,
    frame_forms,
    history_display,
    display_scope,
    display_numbers,
    enable_disp,
    print_last_format,
    cxx_display,
    display_inline,
    info_program,
    info_scope,
    info_scope_o2,
    info_symbols,
    list_source,
    logging,
    o2_avx,
    o2_entry,
    o2_heat2d,
    o2_inline_break,
    o2_inline,
    o2_next_inline,
    o2_locals,
    o2_next,
    o2_pieces,
    o2_step,
    o2_tailcall,
    o2_values,
    o2_vector,
    o2_vla,
    output_radix,
    print_formats,
    print_settings,
    print_array,
    print_sevenbit,
    show_run_settings,
    cxx_print_array,
    cxx_print_cxx,
    cxx_static_self,
    ptype_whatis,
    recursion,
    return_find,
    rt_killed,
    rt_signals,
    scope,
    settings_abbrev,
    help_commands,
    setting_funcs,
    frame_arguments,
    script_lang,
    segv_recursion,
    show_convenience,
    silent_values,
    step_next,
    step_nodebug,
    step_mode,
    step_plt,
    step_signal,
    stepi_nexti,
    stripped,
    stripped_all,
    string_literals,
    threads,
    threads_many,
    tls,
    tls_lib,
    two_units,
    until_advance,
    values_array,
    values_pointer,
    values_scalar,
    values_struct,
    vector_ops,
    watch_global,
    watch_local,
    watch_location,
    watch_software,
    watch_software_local,
    watch_software_step,
    watch_pc,
}

/// Every script in `tests/source` has its test above.
#[test]
fn every_case_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(source_case_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "cmds").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = CASES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(
        listed, on_disk,
        "cases! list and tests/source/*.cmds differ"
    );
}
