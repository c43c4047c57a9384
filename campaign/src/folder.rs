//! The results folder: the description it belongs to, and files written
//! whole or not at all.
//!
//! A folder holds one campaign's results. Its description is written
//! beside them (`campaign.json`) by the first run, and every later run,
//! resume and merge checks it: a folder of another description (another
//! base seed, dispersion or bench setting, say `--orbits 6` where the
//! results were made with 2) is refused, naming what differs, instead of
//! mixing two campaigns in one table or resuming one with the other's
//! runs. Only the number of runs may differ: a campaign grows, or a merge
//! looks at its first runs.

use std::collections::hash_map::RandomState;
use std::fs;
use std::hash::BuildHasher;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::campaign::Campaign;
use crate::error::CampaignError;

/// The description's file in a results folder.
pub(crate) const DESCRIPTION_FILE: &str = "campaign.json";

/// Makes `dir` if needed and checks (or writes) its description: a run's
/// first step.
pub(crate) fn claim(dir: &Path, campaign: &Campaign) -> Result<(), CampaignError> {
    fs::create_dir_all(dir).map_err(|source| io_error(dir, source))?;
    let path = dir.join(DESCRIPTION_FILE);
    // The first description published wins: a link fails if the file is
    // there, so two processes starting two descriptions at once cannot
    // both be accepted.
    if publish_new(&path, campaign.to_json().as_bytes())? {
        return Ok(());
    }
    let saved = read_description(&path)?.ok_or_else(|| CampaignError::DescriptionFile {
        path: path.clone(),
        reason: "it disappeared while it was read".to_owned(),
    })?;
    check_same(&saved, campaign, &path)?;
    if saved.runs() < campaign.runs() {
        // The campaign grows: only the number of runs changes.
        write_atomically(&path, campaign.to_json().as_bytes())?;
    }
    Ok(())
}

/// Checks `dir`'s description, for a merge: the folder must exist; its
/// description, if any, must be `campaign`'s.
pub(crate) fn check(dir: &Path, campaign: &Campaign) -> Result<(), CampaignError> {
    if !dir.is_dir() {
        return Err(CampaignError::NoResults {
            dir: dir.to_owned(),
        });
    }
    let path = dir.join(DESCRIPTION_FILE);
    match read_description(&path)? {
        Some(saved) => check_same(&saved, campaign, &path),
        None => Ok(()),
    }
}

/// The description at `path`, if there is one.
fn read_description(path: &Path) -> Result<Option<Campaign>, CampaignError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(io_error(path, source)),
    };
    Campaign::from_json(bytes.as_slice())
        .map(Some)
        .map_err(|error| CampaignError::DescriptionFile {
            path: path.to_owned(),
            reason: error.to_string(),
        })
}

fn check_same(saved: &Campaign, campaign: &Campaign, path: &Path) -> Result<(), CampaignError> {
    match saved.difference(campaign) {
        None => Ok(()),
        Some(reason) => Err(CampaignError::OtherDescription {
            path: path.to_owned(),
            reason,
        }),
    }
}

/// Writes `bytes` to `path` through a temporary file of its own (a unique
/// name, so that two writers of one path never share it), synced and
/// renamed into place: a reader sees the old file or the new one, whole.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CampaignError> {
    let partial = write_partial(path, bytes)?;
    if let Err(source) = fs::rename(&partial, path) {
        let _ = fs::remove_file(&partial);
        return Err(io_error(path, source));
    }
    Ok(())
}

/// Writes `bytes` to `path` unless a file is there; true if written. The
/// file appears whole (a hard link of a complete temporary file).
fn publish_new(path: &Path, bytes: &[u8]) -> Result<bool, CampaignError> {
    let partial = write_partial(path, bytes)?;
    let linked = fs::hard_link(&partial, path);
    let _ = fs::remove_file(&partial);
    match linked {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // A file system without hard links (some network and FUSE mounts):
        // created exclusively and written in place instead. A reader racing
        // that first write may find it incomplete and be refused with a
        // message naming it; the next look reads it whole.
        Err(_) => create_new(path, bytes),
    }
}

/// Writes `bytes` to `path` unless a file is there (an exclusive create);
/// true if written.
fn create_new(path: &Path, bytes: &[u8]) -> Result<bool, CampaignError> {
    let created = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    let mut file = match created {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        Err(source) => return Err(io_error(path, source)),
    };
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|source| io_error(path, source))?;
    Ok(true)
}

/// Writes `bytes` to a temporary file beside `path`, synced; its path.
fn write_partial(path: &Path, bytes: &[u8]) -> Result<PathBuf, CampaignError> {
    let partial = partial_path(path);
    let written = fs::File::create(&partial).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(source) = written {
        let _ = fs::remove_file(&partial);
        return Err(io_error(path, source));
    }
    Ok(partial)
}

/// A temporary name beside `path`, unique to this write: the process id,
/// a counter and a per-process random key (two processes of one id on two
/// hosts sharing the folder differ by the key).
fn partial_path(path: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let write = WRITES.fetch_add(1, Ordering::Relaxed);
    let key = RandomState::new().hash_one(write);
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    path.with_file_name(format!(
        ".{name}.{}-{write}-{key:016x}.partial",
        std::process::id()
    ))
}

fn io_error(path: &Path, source: io::Error) -> CampaignError {
    CampaignError::Io {
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_is_published_once_either_way() {
        let dir =
            std::env::temp_dir().join(format!("causim-campaign-folder-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (linked, created) = (dir.join("linked"), dir.join("created"));
        assert!(publish_new(&linked, b"first").unwrap());
        assert!(!publish_new(&linked, b"second").unwrap());
        assert!(create_new(&created, b"first").unwrap());
        assert!(!create_new(&created, b"second").unwrap());
        for path in [&linked, &created] {
            assert_eq!(fs::read(path).unwrap(), b"first");
        }
        let leftovers = fs::read_dir(&dir).unwrap().count();
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(leftovers, 2, "no temporary file left");
    }
}
