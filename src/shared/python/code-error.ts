// The one error shape of the code module: conversion and parsing failures are invalid payloads.
import { AppError } from '../errors';

// Builds the `INVALID_PAYLOAD` error thrown where the reference converter aborts.
export function invalidCode(message: string, details?: Record<string, unknown>): AppError {
  return new AppError('INVALID_PAYLOAD', message, details);
}
