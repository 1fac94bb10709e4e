import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { VerifyResult } from './http.js';

// The `local` provider runs on this machine: tts `espeak-ng` needs the espeak-ng binary and
// stt `pocketsphinx-en-us` needs PocketSphinx (Debian: packages `pocketsphinx`, which installs
// pocketsphinx_continuous, and `pocketsphinx-en-us`, the US English model). llm `echo` needs nothing.

export interface LocalProbeOptions {
  /** Directories searched for binaries (default: $PATH). */
  searchPath?: string[];
  /** Candidate US English model directories (each holds en-us/, en-us.lm.bin and cmudict-en-us.dict). */
  modelDirs?: string[];
}

export const DEFAULT_MODEL_DIRS = ['/usr/share/pocketsphinx/model/en-us', '/usr/local/share/pocketsphinx/model/en-us'];
const POCKETSPHINX_BINARIES = ['pocketsphinx_continuous', 'pocketsphinx'];

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Full path of the first `names` found executable on `dirs`, else null (what `which` does). */
export async function which(names: string[], dirs: string[]): Promise<string | null> {
  for (const dir of dirs) {
    for (const name of names) {
      const file = join(dir, name);
      if (await isExecutable(file)) return file;
    }
  }
  return null;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

export async function findPocketsphinxModel(dirs: string[]): Promise<string | null> {
  for (const dir of dirs) {
    const parts = [join(dir, 'en-us', 'mdef'), join(dir, 'en-us.lm.bin'), join(dir, 'cmudict-en-us.dict')];
    if ((await Promise.all(parts.map(exists))).every(Boolean)) return dir;
  }
  return null;
}

export interface LocalEngines {
  espeakNg: string | null;
  pocketsphinx: string | null;
  pocketsphinxModel: string | null;
}

/** Where the local engines are, for the media engine and for verification. */
export async function findLocalEngines(opts: LocalProbeOptions = {}): Promise<LocalEngines> {
  const dirs = opts.searchPath ?? (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return {
    espeakNg: await which(['espeak-ng'], dirs),
    pocketsphinx: await which(POCKETSPHINX_BINARIES, dirs),
    pocketsphinxModel: await findPocketsphinxModel(opts.modelDirs ?? DEFAULT_MODEL_DIRS),
  };
}

export async function verifyLocal(opts: LocalProbeOptions = {}): Promise<VerifyResult> {
  const found = await findLocalEngines(opts);
  const missing: string[] = [];
  if (!found.espeakNg) missing.push('espeak-ng (tts model espeak-ng; Debian package espeak-ng) is not installed');
  if (!found.pocketsphinx) {
    missing.push('pocketsphinx (stt model pocketsphinx-en-us; no pocketsphinx_continuous or pocketsphinx binary; Debian package pocketsphinx) is not installed');
  } else if (!found.pocketsphinxModel) {
    missing.push('the PocketSphinx US English model (Debian package pocketsphinx-en-us) is not installed');
  }
  if (missing.length) return { status: 'invalid', detail: missing.join('; ') };
  return { status: 'verified', detail: null };
}
