//! `animkit --register` / `--unregister`: the Explorer context-menu entry "Convert with
//! animkit" (the one-step conversion of `animkit PATH`) on the files animkit converts and on
//! folders, for the current user only (under `HKCU\Software\Classes`, no administrator
//! rights). Windows only: elsewhere both say so and exit with 2.

use std::process::ExitCode;

/// The menu entry's text.
#[cfg_attr(not(windows), allow(dead_code))]
pub const MENU_TEXT: &str = "Convert with animkit";

/// The registry keys of the entry, under `HKEY_CURRENT_USER`: one per file extension animkit
/// converts in one step (every registry format's, its YAML documents, glTF files), in
/// `SystemFileAssociations` so it shows whatever program owns the extension, and one for
/// folders (an unpacked archive back into its archive).
#[cfg_attr(not(windows), allow(dead_code))]
pub fn keys() -> Vec<String> {
    let mut exts: Vec<String> = crate::registry::FORMATS
        .iter()
        .flat_map(|f| f.extensions().iter())
        .chain(["yaml", "glb", "gltf"].iter())
        .map(|e| e.to_ascii_lowercase())
        .collect();
    exts.sort();
    exts.dedup();
    let mut keys: Vec<String> = exts
        .iter()
        .map(|e| format!(r"Software\Classes\SystemFileAssociations\.{e}\shell\animkit"))
        .collect();
    keys.push(r"Software\Classes\Directory\shell\animkit".into());
    keys
}

/// `--register` (true) or `--unregister` (false).
pub fn run(register: bool) -> ExitCode {
    let flag = if register {
        "--register"
    } else {
        "--unregister"
    };
    match platform::run(register) {
        Ok(lines) => {
            for line in lines {
                eprintln!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("animkit {flag}: error: {message}");
            ExitCode::from(2)
        }
    }
}

#[cfg(windows)]
mod platform {
    use super::{keys, MENU_TEXT};
    use windows_sys::Win32::Foundation::{ERROR_FILE_NOT_FOUND, ERROR_SUCCESS, WIN32_ERROR};
    use windows_sys::Win32::System::Registry::{
        RegDeleteTreeW, RegSetKeyValueW, HKEY_CURRENT_USER, REG_SZ,
    };

    /// A NUL-terminated UTF-16 string.
    fn wide(s: &str) -> Vec<u16> {
        s.encode_utf16().chain(std::iter::once(0)).collect()
    }

    fn failed(what: &str, key: &str, code: WIN32_ERROR) -> String {
        format!(
            r"{what} HKEY_CURRENT_USER\{key}: {}",
            std::io::Error::from_raw_os_error(code as i32)
        )
    }

    /// Set the string value `name` (None: the key's default value) of `key`, creating the key.
    fn set(key: &str, name: Option<&str>, value: &str) -> Result<(), String> {
        let k = wide(key);
        let n = name.map(wide);
        let v = wide(value);
        // SAFETY: `k`, `n` and `v` are NUL-terminated UTF-16 buffers alive for the call; the
        // data pointer and its byte length (the terminator included, as REG_SZ wants) describe
        // `v` exactly; a null value name sets the key's default value.
        let code = unsafe {
            RegSetKeyValueW(
                HKEY_CURRENT_USER,
                k.as_ptr(),
                n.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                REG_SZ,
                v.as_ptr().cast(),
                (v.len() * 2) as u32,
            )
        };
        if code == ERROR_SUCCESS {
            Ok(())
        } else {
            Err(failed("cannot write", key, code))
        }
    }

    pub fn run(register: bool) -> Result<Vec<String>, String> {
        let keys = keys();
        if register {
            let exe = std::env::current_exe()
                .map_err(|e| format!("cannot find this program's path: {e}"))?;
            let exe = exe.to_string_lossy().into_owned();
            let command = format!("\"{exe}\" \"%1\"");
            for key in &keys {
                set(key, None, MENU_TEXT)?;
                set(key, Some("Icon"), &exe)?;
                set(&format!(r"{key}\command"), None, &command)?;
            }
            return Ok(vec![format!(
                "registered \"{MENU_TEXT}\" in Explorer's context menu for {} file types and \
                 folders (HKEY_CURRENT_USER\\Software\\Classes), running {command}; \
                 `animkit --unregister` removes it",
                keys.len() - 1
            )]);
        }
        let mut removed = 0;
        for key in &keys {
            let k = wide(key);
            // SAFETY: `k` is a NUL-terminated UTF-16 buffer alive for the call.
            let code = unsafe { RegDeleteTreeW(HKEY_CURRENT_USER, k.as_ptr()) };
            match code {
                ERROR_SUCCESS => removed += 1,
                ERROR_FILE_NOT_FOUND => {}
                _ => return Err(failed("cannot remove", key, code)),
            }
        }
        Ok(vec![if removed == 0 {
            format!("\"{MENU_TEXT}\" was not registered: nothing to remove")
        } else {
            format!("removed \"{MENU_TEXT}\" from Explorer's context menu ({removed} entries)")
        }])
    }
}

#[cfg(not(windows))]
mod platform {
    pub fn run(_register: bool) -> Result<Vec<String>, String> {
        Err(
            "the Explorer context menu is Windows-only; on this system run `animkit PATH...` \
             (or add it to your file manager's actions yourself)"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    /// One key per extension the one-step conversion takes, and one for folders.
    #[test]
    fn keys_name_every_converted_extension_and_folders() {
        let keys = super::keys();
        for ext in [
            "man", "mdh", "mds", "msb", "vdf", "mod", "zbd", "upk", "yaml", "glb",
        ] {
            let key = format!(r"Software\Classes\SystemFileAssociations\.{ext}\shell\animkit");
            assert!(keys.contains(&key), "{key} missing from {keys:?}");
        }
        assert_eq!(
            keys.last().map(String::as_str),
            Some(r"Software\Classes\Directory\shell\animkit")
        );
        let mut unique = keys.clone();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
    }
}
